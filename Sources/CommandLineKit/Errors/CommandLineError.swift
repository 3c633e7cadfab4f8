/// A usage error: something in the arguments, the environment or the config file the user has to fix.
/// The process should print `description` to standard error and exit with `exitCode` (64, `EX_USAGE`).
public struct CommandLineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, with the offending text.
    public enum Kind: Sendable, Equatable {
        /// An option the command does not declare; `suggestion` is the closest declared spelling, e.g. `--brokers`.
        case unknownOption(String, suggestion: String?)
        /// A value option at the end of the arguments, or followed by another option.
        case missingValue(option: String, valueName: String)
        /// `--flag=value`: flags take no value.
        case unexpectedValue(option: String, text: String)
        /// A required option that neither the command line, the environment nor the config file supplied.
        case missingRequiredOption(option: String, environmentVariable: String?)
        /// Text that does not convert to the option's type; `expected` describes what would.
        case badValue(option: String, text: String, expected: String)
        /// A positional argument the command has no room for.
        case unexpectedPositional(String)
        /// A required positional argument that was not given.
        case missingPositional(name: String)
        /// A command name the program does not declare; `suggestion` is the closest declared one.
        case unknownCommand(String, suggestion: String?)
        /// No command given and the program has no default command.
        case missingCommand(available: [String])
        /// The config file could not be read; `reason` is the system's explanation.
        case unreadableConfigFile(path: String, reason: String)
        /// A config file line that is not `key = value`, a comment or blank.
        case malformedConfigLine(String)
        /// A config file key that is not a long option name of the command.
        case unknownConfigKey(String, suggestion: String?)
    }

    /// What went wrong.
    public var kind: Kind
    /// Where the offending text came from; `nil` when it is about something missing.
    public var source: ValueSource?
    /// Usage prefix such as `tripstream replay`, for the "see --help" hint.
    public var usageName: String?

    /// Index into the `arguments` array given to `parse` of the offending argument, when it came from there.
    public var position: Int? {
        if case .commandLine(let position) = source { return position }
        return nil
    }

    /// `EX_USAGE` from sysexits.h.
    public var exitCode: Int32 { 64 }

    /// Creates an error.
    public init(_ kind: Kind, source: ValueSource? = nil, usageName: String? = nil) {
        self.kind = kind
        self.source = source
        self.usageName = usageName
    }

    /// One-line message plus a pointer to `--help`, e.g.
    /// `error: unknown option '--bokers' (argument 2); did you mean '--brokers'?`.
    public var description: String {
        var text = "error: " + problem
        if let source { text += " (\(source))" }
        switch kind {
        case .unknownOption(_, let suggestion?), .unknownCommand(_, let suggestion?),
            .unknownConfigKey(_, let suggestion?):
            text += "; did you mean '\(suggestion)'?"
        default:
            break
        }
        if let usageName { text += "\nSee '\(usageName) --help' for usage." }
        return text
    }

    private var problem: String {
        switch kind {
        case .unknownOption(let option, _):
            "unknown option '\(option)'"
        case .missingValue(let option, let valueName):
            "option '\(option)' needs a value <\(valueName)>"
        case .unexpectedValue(let option, let text):
            "flag '\(option)' takes no value, but was given '\(text)'"
        case .missingRequiredOption(let option, let variable?):
            "missing required option '\(option)' (or environment variable \(variable))"
        case .missingRequiredOption(let option, nil):
            "missing required option '\(option)'"
        case .badValue(let option, let text, let expected):
            "invalid value '\(text)' for '\(option)': expected \(expected)"
        case .unexpectedPositional(let text):
            "unexpected argument '\(text)'"
        case .missingPositional(let name):
            "missing argument <\(name)>"
        case .unknownCommand(let name, _):
            "unknown command '\(name)'"
        case .missingCommand(let available):
            "missing command; expected one of: \(available.joined(separator: ", "))"
        case .unreadableConfigFile(let path, let reason):
            "cannot read config file '\(path)': \(reason)"
        case .malformedConfigLine(let line):
            "config line '\(line)' is not 'key = value'"
        case .unknownConfigKey(let key, _):
            "unknown config key '\(key)'"
        }
    }
}
