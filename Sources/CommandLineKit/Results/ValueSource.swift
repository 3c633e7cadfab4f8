/// Where a value came from, so an error can point at the exact text the user has to fix.
public enum ValueSource: Sendable, Equatable, CustomStringConvertible {
    /// `arguments[position]` of the array given to `parse(arguments:environment:)`.
    case commandLine(position: Int)
    /// The named environment variable.
    case environment(variable: String)
    /// Line `line` (1-based) of the config file at `path`.
    case configFile(path: String, line: Int)
    /// The option's declared default.
    case defaultValue

    /// Human-readable location used in error messages.
    public var description: String {
        switch self {
        case .commandLine(let position): "argument \(position + 1)"
        case .environment(let variable): "environment variable \(variable)"
        case .configFile(let path, let line): "\(path):\(line)"
        case .defaultValue: "default value"
        }
    }
}
