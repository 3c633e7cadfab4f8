/// A key of 1…16 bytes as two 64-bit words, so that a decoder compares it with a known key in two
/// compares instead of a loop over its bytes (`FixDecoder`: seven keys per fix, about 900
/// instructions per fix in `JSONReader.matches`).
///
/// `first` holds bytes 0..<8 (zero-padded when shorter), `last` bytes count-8..<count when longer
/// than 8 (the two overlap), else 0; both read little-endian.
public struct KeyWords: Equatable, Sendable {
    var first: UInt64
    var last: UInt64
    var count: Int

    /// A known key's words, built byte by byte: a literal's storage may end right after it.
    public init(_ name: StaticString) {
        precondition(name.hasPointerRepresentation && (1...16).contains(name.utf8CodeUnitCount))
        self.init(UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }

    init(_ bytes: UnsafeRawBufferPointer) {
        func word(_ range: Range<Int>) -> UInt64 {
            var word: UInt64 = 0
            for (shift, index) in range.enumerated() { word |= UInt64(bytes[index]) << (8 * UInt64(shift)) }
            return word
        }
        count = bytes.count
        first = word(0..<min(8, count))
        last = count > 8 ? word(count - 8..<count) : 0
    }

    init(first: UInt64, last: UInt64, count: Int) {
        self.first = first
        self.last = last
        self.count = count
    }
}

extension JSONReader {
    /// The words of an unescaped key of 1…16 bytes; nil for any other (compare it with `matches`).
    @inline(__always)
    public func keyWords(_ token: JSONStringToken) -> KeyWords? {
        let count = token.rawCount
        guard !token.hasEscapes, count >= 1, count <= 16 else { return nil }
        if count > 8 {
            // Two loads inside the key: its first 8 bytes and its last 8.
            return KeyWords(first: load(at: token.start), last: load(at: token.end - 8), count: count)
        }
        // One load over the key and what follows it (the closing quote and more), masked to the
        // key; near the buffer's end, byte by byte.
        guard token.start + 8 <= buffer.count else { return KeyWords(rawBytes(token)) }
        let mask: UInt64 = count == 8 ? .max : (1 << (8 * UInt64(count))) - 1
        return KeyWords(first: load(at: token.start) & mask, last: 0, count: count)
    }
}
