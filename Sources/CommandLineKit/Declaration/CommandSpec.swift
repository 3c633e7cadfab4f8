/// Declaration of one (sub)command: its name, its help texts, its option table and its positional arguments.
///
/// Declare it once, as a `static let` next to the code that runs the command:
///
/// ```swift
/// static let configuration = CommandSpec(
///     name: "replay",
///     abstract: "Fold NDJSON files (plain or .lz4) into output files.",
///     options: [
///         .repeatable("input", short: "i", valueName: "path", help: "Input file."),
///         .value("format", help: "Output format.", choices: OutputFormat.self, default: .ndjson),
///         .flag("verbose", short: "v", help: "Log every rejected fix."),
///     ])
/// ```
public struct CommandSpec: Sendable {
    /// The word that selects this command: `tripstream <name>`.
    public var name: String
    /// One line shown in the program's command list and at the top of the command's help.
    public var abstract: String
    /// Longer text shown in the command's help after the abstract; paragraphs separated by blank lines.
    public var discussion: String
    /// The option table, in the order help lists it.
    public var options: [OptionSpec]
    /// Positional arguments, in order; without any, a positional argument is a usage error.
    public var positionals: [PositionalSpec]

    /// Creates a command declaration.
    /// - Important: Duplicate long or short names, `help`/`h` as a name, or a repeating positional that is not the
    ///   last one are programmer errors and stop the program.
    public init(
        name: String,
        abstract: String,
        discussion: String = "",
        options: [OptionSpec] = [],
        positionals: [PositionalSpec] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.positionals = positionals
        validateDeclaration()
    }

    /// The option declared with `longName`, if any.
    public func option(named longName: some StringProtocol) -> OptionSpec? {
        options.first { $0.longName == longName }
    }

    /// The option declared with the short alias `letter`, if any.
    public func option(short letter: Character) -> OptionSpec? {
        options.first { $0.shortName == letter }
    }

    // Mistakes in the table are found on first use, in tests, not by users.
    private func validateDeclaration() {
        var longNames: Set<String> = ["help"]
        var shortNames: Set<Character> = ["h"]
        for option in options {
            precondition(longNames.insert(option.longName).inserted, "\(name): duplicate option --\(option.longName)")
            if let short = option.shortName {
                precondition(shortNames.insert(short).inserted, "\(name): duplicate short option -\(short)")
            }
        }
        precondition(options.filter(\.isConfigFile).count <= 1, "\(name): more than one config-file option")
        for (index, positional) in positionals.enumerated() where positional.isRepeating {
            precondition(index == positionals.count - 1, "\(name): repeating positional must come last")
        }
    }
}
