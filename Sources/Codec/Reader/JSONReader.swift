import Domain

/// A pull reader over the bytes of one JSON text, with full RFC 8259 validation.
///
/// The caller walks the structure it expects (`beginObject`/`nextKey`, `beginArray`/`nextElement`,
/// `readString`, `readNumber`, …) and skips the rest with `skipValue`, which validates what it
/// skips. Every syntax error throws `invalid_json` with the byte offset. Nothing is allocated
/// unless the caller materializes a value (`string(_:)`, `rawJSON(from:)`).
///
/// - Important: The reader holds the buffer's address. Create it inside `withUnsafeBytes` and do
///   not let it escape the closure.
public struct JSONReader {
    let buffer: UnsafeRawBufferPointer
    /// Offset of the next unread byte.
    public var index: Int
    /// Containers currently open.
    var depth: Int

    /// Objects and arrays nested deeper than this are `invalid_json` (bounds recursion and work).
    public static let maxDepth = 64

    public init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
        self.index = 0
        self.depth = 0
    }

    public var count: Int { buffer.count }

    // MARK: - Bytes and whitespace

    func byte(at offset: Int) -> UInt8 { buffer[offset] }

    /// The 8 bytes at `offset` as one word, byte k in bits 8k..<8k+8; the caller checks they are in the buffer.
    @inline(__always)
    func load(at offset: Int) -> UInt64 {
        UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// Skips JSON whitespace (space, tab, LF, CR) and returns the next byte, or nil at the end.
    @inline(__always)
    public mutating func peekByte() -> UInt8? {
        // Compact JSON has no whitespace: answer that case without a loop.
        if index < buffer.count, buffer[index] > 0x20 { return buffer[index] }
        return peekByteAfterWhitespace()
    }

    mutating func peekByteAfterWhitespace() -> UInt8? {
        while index < buffer.count {
            let b = buffer[index]
            if b > 0x20 { return b }
            guard b == 0x20 || b == 0x0a || b == 0x0d || b == 0x09 else { return b }
            index += 1
        }
        return nil
    }

    /// The kind of the next value (after whitespace), without consuming it.
    public mutating func peekKind() -> JSONValueKind {
        guard let b = peekByte() else { return .invalid }
        return JSONValueKind(firstByte: b)
    }

    // MARK: - Errors

    @usableFromInline
    func syntaxError(_ what: String) -> DecodeError {
        DecodeError(.invalidJSON, "invalid JSON at byte \(index): \(what)")
    }

    @usableFromInline
    func unexpected(_ expected: String) -> DecodeError {
        guard index < buffer.count else { return syntaxError("unexpected end of input, expected \(expected)") }
        let b = buffer[index]
        let shown = b >= 0x20 && b < 0x7f ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x\(String(b, radix: 16))"
        return syntaxError("unexpected \(shown), expected \(expected)")
    }

    // MARK: - Containers

    /// Consumes `{` and opens an object.
    public mutating func beginObject() throws(DecodeError) -> JSONContainerCursor {
        guard peekByte() == UInt8(ascii: "{") else { throw unexpected("'{'") }
        try open()
        return JSONContainerCursor()
    }

    /// Consumes `[` and opens an array.
    public mutating func beginArray() throws(DecodeError) -> JSONContainerCursor {
        guard peekByte() == UInt8(ascii: "[") else { throw unexpected("'['") }
        try open()
        return JSONContainerCursor()
    }

    mutating func open() throws(DecodeError) {
        depth += 1
        if depth > Self.maxDepth { throw syntaxError("nesting deeper than \(Self.maxDepth)") }
        index += 1
    }

    /// Reads the next member's key and its colon, leaving the reader at the member's value; returns
    /// nil (and closes the object) at `}`.
    public mutating func nextKey(_ cursor: inout JSONContainerCursor) throws(DecodeError) -> JSONStringToken? {
        guard try nextMember(&cursor) else { return nil }
        return try readKey()
    }

    /// Moves to the next member's name (past the `,` before it); returns false (and closes the
    /// object) at `}`. Then `readKey`, or `skipKey` for a name the caller expects.
    public mutating func nextMember(_ cursor: inout JSONContainerCursor) throws(DecodeError) -> Bool {
        guard let b = peekByte() else { throw unexpected("'}' or a member") }
        if b == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return false
        }
        if cursor.isFirst {
            cursor.isFirst = false
            guard b == UInt8(ascii: "\"") else { throw unexpected("a member name or '}'") }
        } else {
            guard b == UInt8(ascii: ",") else { throw unexpected("',' or '}'") }
            index += 1
            // Also rejects a trailing comma before '}'.
            guard peekByte() == UInt8(ascii: "\"") else { throw unexpected("a member name") }
        }
        return true
    }

    /// Reads the member name at the reader's position (after `nextMember`) and the `:` after it.
    public mutating func readKey() throws(DecodeError) -> JSONStringToken {
        let key = try readString()
        guard peekByte() == UInt8(ascii: ":") else { throw unexpected("':' after member name") }
        index += 1
        return key
    }

    /// Moves past the member name at the reader's position (after `nextMember`) and its `:` if the
    /// name is `quoted`'s, byte for byte, quotes included; otherwise moves nowhere and returns false,
    /// and `readKey` reads the name. A decoder that knows which member usually comes next tells it
    /// apart in two compares, without scanning it as a string.
    @inline(__always)
    public mutating func skipKey(_ quoted: KeyWords) -> Bool {
        let count = quoted.count
        guard index + max(count, 8) <= buffer.count else { return false }
        if count > 8 {
            guard load(at: index) == quoted.first, load(at: index + count - 8) == quoted.last else { return false }
        } else {
            let mask: UInt64 = count == 8 ? .max : (1 << (8 * UInt64(count))) - 1
            guard load(at: index) & mask == quoted.first else { return false }
        }
        let after = index
        index += count
        guard peekByte() == UInt8(ascii: ":") else {
            index = after
            return false
        }
        index += 1
        return true
    }

    /// Moves to the next element of an array; returns false (and closes the array) at `]`.
    public mutating func nextElement(_ cursor: inout JSONContainerCursor) throws(DecodeError) -> Bool {
        guard let b = peekByte() else { throw unexpected("']' or a value") }
        if b == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return false
        }
        if cursor.isFirst {
            cursor.isFirst = false
        } else {
            guard b == UInt8(ascii: ",") else { throw unexpected("',' or ']'") }
            index += 1
            if peekByte() == UInt8(ascii: "]") { throw syntaxError("trailing comma in array") }
        }
        return true
    }

    // MARK: - Literals

    /// Reads `true` or `false`.
    public mutating func readBool() throws(DecodeError) -> Bool {
        if literal("true") { return true }
        if literal("false") { return false }
        throw unexpected("true or false")
    }

    /// Reads `null`.
    public mutating func readNull() throws(DecodeError) {
        if !literal("null") { throw unexpected("null") }
    }

    mutating func literal(_ word: StaticString) -> Bool {
        _ = peekByte()
        let n = word.utf8CodeUnitCount
        guard index + n <= buffer.count else { return false }
        let p = word.utf8Start
        for i in 0..<n where buffer[index + i] != p[i] { return false }
        index += n
        return true
    }

    // MARK: - Skipping and capturing

    /// Skips one value of any kind, validating it fully.
    public mutating func skipValue() throws(DecodeError) {
        guard let b = peekByte() else { throw unexpected("a value") }
        switch b {
        case UInt8(ascii: "\""):
            _ = try readString()
        case UInt8(ascii: "{"):
            var cursor = try beginObject()
            while try nextKey(&cursor) != nil { try skipValue() }
        case UInt8(ascii: "["):
            var cursor = try beginArray()
            while try nextElement(&cursor) { try skipValue() }
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            _ = try readBool()
        case UInt8(ascii: "n"):
            try readNull()
        default:
            _ = try readNumber()
        }
    }

    /// Skips one value and returns its exact source range (without surrounding whitespace).
    public mutating func captureValue() throws(DecodeError) -> Range<Int> {
        _ = peekByte()
        let start = index
        try skipValue()
        return start..<index
    }

    /// Copies the bytes of `range` (e.g. from `captureValue`) into a `RawJSON`.
    public func rawJSON(_ range: Range<Int>) -> RawJSON {
        RawJSON(bytes: Array(UnsafeRawBufferPointer(rebasing: buffer[range])))
    }

    /// A reader over a sub-range of this reader's buffer (e.g. a captured value read later).
    public func subReader(_ range: Range<Int>) -> JSONReader {
        var reader = JSONReader(UnsafeRawBufferPointer(rebasing: buffer[..<range.upperBound]))
        reader.index = range.lowerBound
        reader.depth = depth
        return reader
    }

    // MARK: - Top level

    /// Requires that only whitespace follows.
    public mutating func finish() throws(DecodeError) {
        if peekByte() != nil { throw syntaxError("trailing data after the JSON value") }
    }

    /// Validates that the buffer holds exactly one JSON value of any kind.
    public static func validate(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) {
        var reader = JSONReader(bytes)
        try reader.skipValue()
        try reader.finish()
    }

    /// Positions the reader at a top-level object. If the record is valid JSON but not an object,
    /// throws `not_an_object`; if it is not valid JSON at all, `invalid_json` (which wins).
    public mutating func expectTopLevelObject() throws(DecodeError) {
        guard let b = peekByte() else { throw syntaxError("empty record") }
        if b == UInt8(ascii: "{") { return }
        let kind = JSONValueKind(firstByte: b)
        try skipValue()
        try finish()
        throw DecodeError(.notAnObject, "record is a JSON \(kind.name), expected an object")
    }
}
