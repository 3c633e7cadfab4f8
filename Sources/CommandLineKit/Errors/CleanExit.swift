/// Not a failure: the user asked for help. Print `message` to standard output and exit with `exitCode` (0).
public struct CleanExit: Error, Sendable, Equatable, CustomStringConvertible {
    /// The rendered help text.
    public var message: String

    /// Always 0.
    public var exitCode: Int32 { 0 }

    /// Creates a clean exit carrying the text to print.
    public init(message: String) {
        self.message = message
    }

    /// The help text.
    public var description: String { message }
}
