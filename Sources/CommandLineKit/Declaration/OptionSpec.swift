/// One row of a command's option table: everything the parser and the help renderer need to know about an option.
///
/// Build rows with the factories (`flag`, `value`, `repeatable`, `configFile`) rather than the memberwise
/// initializer; they pick sensible value names and keep the table readable:
///
/// ```swift
/// .value("brokers", short: "b", valueName: "host:port,...", help: "Kafka bootstrap servers.",
///        default: "localhost:9092", environment: "TRIPSTREAM_BROKERS")
/// ```
public struct OptionSpec: Sendable, Equatable {
    /// Kebab-case name used as `--long-name`, as the key in config files, and to read the value back.
    public var longName: String
    /// Optional one-letter alias used as `-k`.
    public var shortName: Character?
    /// Placeholder shown in help and usage, e.g. `path` renders as `<path>`.
    public var valueName: String
    /// One or two sentences for the help screen.
    public var help: String
    /// Text used when no other source supplies a value; parsed exactly like a command-line value.
    public var defaultValue: String?
    /// Flag, single value or repeatable value.
    public var kind: OptionKind
    /// When `true`, parsing fails unless the flag, the environment or the config file supplies a value.
    public var isRequired: Bool
    /// Environment variable consulted when the option is absent from the command line.
    public var environmentVariable: String?
    /// Accepted values (checked while parsing, listed in help); empty means free text.
    public var choices: [String]
    /// For flags: whether `--no-<name>` is accepted to switch the flag off.
    public var allowsInversion: Bool
    /// Marks the option whose value names a `key = value` config file to read further values from.
    public var isConfigFile: Bool

    /// Creates an option row; prefer the static factories.
    public init(
        longName: String,
        shortName: Character? = nil,
        valueName: String? = nil,
        help: String,
        defaultValue: String? = nil,
        kind: OptionKind,
        isRequired: Bool = false,
        environmentVariable: String? = nil,
        choices: [String] = [],
        allowsInversion: Bool = false,
        isConfigFile: Bool = false
    ) {
        precondition(Self.isKebabCase(longName), "option name '\(longName)' must be kebab-case")
        self.longName = longName
        self.shortName = shortName
        self.valueName = valueName ?? longName
        self.help = help
        self.defaultValue = defaultValue
        self.kind = kind
        self.isRequired = isRequired
        self.environmentVariable = environmentVariable
        self.choices = choices
        self.allowsInversion = allowsInversion
        self.isConfigFile = isConfigFile
    }

    // MARK: - Factories

    /// A boolean switch. `default: true` together with `inversion: true` gives an option that is on unless
    /// `--no-<name>` is passed.
    public static func flag(
        _ longName: String,
        short: Character? = nil,
        help: String,
        default defaultValue: Bool = false,
        inversion: Bool = false,
        environment: String? = nil
    ) -> OptionSpec {
        OptionSpec(
            longName: longName, shortName: short, help: help, defaultValue: defaultValue ? "true" : nil,
            kind: .flag, environmentVariable: environment, allowsInversion: inversion)
    }

    /// An option taking one value.
    public static func value(
        _ longName: String,
        short: Character? = nil,
        valueName: String? = nil,
        help: String,
        default defaultValue: String? = nil,
        required: Bool = false,
        environment: String? = nil
    ) -> OptionSpec {
        OptionSpec(
            longName: longName, shortName: short, valueName: valueName, help: help, defaultValue: defaultValue,
            kind: .singleValue, isRequired: required, environmentVariable: environment)
    }

    /// An option taking one value out of the cases of `choices`; help lists the raw values.
    public static func value<Choice: CaseIterable & RawRepresentable<String>>(
        _ longName: String,
        short: Character? = nil,
        valueName: String? = nil,
        help: String,
        choices: Choice.Type,
        default defaultValue: Choice? = nil,
        required: Bool = false,
        environment: String? = nil
    ) -> OptionSpec {
        OptionSpec(
            longName: longName, shortName: short, valueName: valueName, help: help,
            defaultValue: defaultValue?.rawValue, kind: .singleValue, isRequired: required,
            environmentVariable: environment, choices: Choice.allCases.map(\.rawValue))
    }

    /// An option that may be given several times; every occurrence adds a value.
    public static func repeatable(
        _ longName: String,
        short: Character? = nil,
        valueName: String? = nil,
        help: String,
        default defaultValue: String? = nil,
        required: Bool = false,
        environment: String? = nil
    ) -> OptionSpec {
        OptionSpec(
            longName: longName, shortName: short, valueName: valueName, help: help, defaultValue: defaultValue,
            kind: .repeatableValue, isRequired: required, environmentVariable: environment)
    }

    /// The `--config FILE` option: a file of `key = value` lines whose keys are the command's long option names.
    /// Precedence is flag > environment > config file > default.
    public static func configFile(
        _ longName: String = "config",
        environment: String? = nil,
        help: String = "Read option values from FILE: 'key = value' lines keyed by long option names."
    ) -> OptionSpec {
        OptionSpec(
            longName: longName, valueName: "file", help: help, kind: .singleValue,
            environmentVariable: environment, isConfigFile: true)
    }

    // MARK: - Rendering helpers

    /// `--long-name`, the spelling used in error messages.
    public var displayName: String { "--" + longName }

    static func isKebabCase(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.last != "-" else {
            return false
        }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }
}
