/// One raw value of an option or positional argument, together with its origin.
public struct ArgumentValue: Sendable, Equatable {
    /// The text exactly as the user wrote it (without the option name or `=`).
    public var text: String
    /// Where the text came from.
    public var source: ValueSource

    /// Creates a value.
    public init(text: String, source: ValueSource) {
        self.text = text
        self.source = source
    }
}
