/// A command that could not do its job: printed as `error: …`, exit status 2 (`ExitStatus`). Made from a
/// thrown error, it keeps it: `--verbose` prints its full detail.
public struct CommandFailure: Error, CustomStringConvertible {
    public var description: String
    public var underlying: (any Error)?
    public init(_ message: String) { description = "error: \(message)" }
    public init(_ error: any Error) {
        description = "error: \(error)"
        underlying = error
    }

    public var verboseDescription: String { underlying.map { "error: " + String(reflecting: $0) } ?? description }
}
