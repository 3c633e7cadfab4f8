/// The whole command tree of one executable: `tripstream <command> [options]`.
///
/// ```swift
/// let program = CommandLineProgram(
///     name: "tripstream",
///     abstract: "Trip and geofence events from vehicle fixes.",
///     commands: [RunCommand.configuration, ReplayCommand.configuration])
/// let parsed = program.parseOrExit()          // real process: prints help/errors and exits
/// let parsed = try program.parse(arguments: ["replay", "--input", "a.ndjson"], environment: [:])   // tests
/// ```
public struct CommandLineProgram: Sendable {
    /// Executable name used in usage lines.
    public var name: String
    /// One line shown at the top of the program help.
    public var abstract: String
    /// Longer text shown after the abstract in the program help.
    public var discussion: String
    /// The subcommands, in the order help lists them.
    public var commands: [CommandSpec]
    /// Command used when the first argument is not a command name (e.g. `tripstream --brokers x` → `run`).
    public var defaultCommand: String?

    /// Creates the command tree.
    /// - Important: Duplicate command names, or a `defaultCommand` that is not declared, stop the program.
    public init(
        name: String,
        abstract: String,
        discussion: String = "",
        commands: [CommandSpec],
        defaultCommand: String? = nil
    ) {
        precondition(Set(commands.map(\.name)).count == commands.count, "\(name): duplicate command names")
        if let defaultCommand {
            precondition(commands.contains { $0.name == defaultCommand }, "\(name): unknown default command")
        }
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.commands = commands
        self.defaultCommand = defaultCommand
    }

    /// The command declared with `name`, if any.
    public func command(named name: String) -> CommandSpec? {
        commands.first { $0.name == name }
    }
}
