/// A validated JSON string in the reader's buffer: the byte range between the quotes.
///
/// Most strings have no escapes; then the range is the UTF-8 text itself and nothing is copied
/// until the caller asks for a `String`.
public struct JSONStringToken: Sendable, Equatable {
    /// Offset of the first byte after the opening quote.
    public var start: Int
    /// Offset of the closing quote.
    public var end: Int
    /// The text contains backslash escapes and must be unescaped before use.
    public var hasEscapes: Bool

    public var rawCount: Int { end - start }
}
