/// What an identifier (`userId`, `deviceId`) may hold: any Unicode text but control characters.
///
/// Refused: C0 controls U+0000–U+001F, DEL U+007F and C1 controls U+0080–U+009F, i.e. Unicode's
/// `Cc` category. None has a use in an id; they break logs and terminals (C1 U+009B is a CSI escape
/// on some), make ids that look equal differ, and a NUL-led userId could collide with the state
/// changelog's internal keys (a partition checkpoint is `"\u{0}partition-checkpoint"`, history
/// segments start with bytes 0x00 0x01). Format characters (zero-width joiners, bidi marks) are
/// left alone: scripts and emoji need them.
public enum Identifier {
    /// The first control character in valid UTF-8 `bytes`: its scalar value and its position,
    /// counted in Unicode scalars from 0.
    public static func controlCharacter(in bytes: UnsafeRawBufferPointer) -> (scalar: UInt32, position: Int)? {
        let n = bytes.count
        var i = 0
        // Plain ASCII, 8 bytes at a time (SWAR), the common case: a word passes if no byte is below
        // 0x20, 0x7F or 0x80 and above. Positions equal byte offsets up to where it stops.
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while i + 8 <= n {
            let word = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let del = word ^ (ones &* 0x7F)
            if ((word &- ones &* 0x20) | (del &- ones) | word) & highs != 0 { break }
            i += 8
        }
        var position = i
        while i < n {
            let b = bytes[i]
            if b < 0x20 || b == 0x7F { return (UInt32(b), position) }
            // C1 controls are U+0080–U+009F: 0xC2 0x80…0x9F in UTF-8.
            if b == 0xC2, i + 1 < n, bytes[i + 1] <= 0x9F { return (UInt32(bytes[i + 1]), position) }
            if b & 0xC0 != 0x80 { position += 1 }
            i += 1
        }
        return nil
    }

    static func detail(_ field: StaticString, _ found: (scalar: UInt32, position: Int)) -> String {
        var hex = String(found.scalar, radix: 16, uppercase: true)
        hex = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        return "\(field) has control character U+\(hex) at position \(found.position) (counting characters "
            + "from 0); identifiers may not hold U+0000–U+001F, U+007F or U+0080–U+009F"
    }
}
