/// Reads what `BinaryWriter` wrote; every read checks bounds and throws on truncated or corrupt
/// input instead of trapping, because snapshots and changelog records come from disk and network.
struct BinaryReader {
    struct Corrupt: Error, CustomStringConvertible {
        var description: String
    }

    let bytes: [UInt8]
    private(set) var offset = 0
    /// The record layout being read (`TimelineCodec.version` of the record), for fields added later.
    var layout: UInt8 = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    private mutating func take(_ count: Int) throws(Corrupt) -> ArraySlice<UInt8> {
        guard count >= 0, bytes.count - offset >= count else {
            throw Corrupt(description: "truncated state record: needed \(count) bytes at offset \(offset) of \(bytes.count)")
        }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    mutating func u8() throws(Corrupt) -> UInt8 { try take(1).first! }

    mutating func bool() throws(Corrupt) -> Bool {
        let v = try u8()
        guard v <= 1 else { throw Corrupt(description: "bad boolean \(v) at offset \(offset - 1)") }
        return v == 1
    }

    mutating func u32() throws(Corrupt) -> UInt32 {
        let slice = try take(4)
        var v: UInt32 = 0
        for (i, b) in slice.enumerated() { v |= UInt32(b) << (8 * UInt32(i)) }
        return v
    }

    mutating func i32() throws(Corrupt) -> Int32 { Int32(bitPattern: try u32()) }

    mutating func u64() throws(Corrupt) -> UInt64 {
        let slice = try take(8)
        var v: UInt64 = 0
        for (i, b) in slice.enumerated() { v |= UInt64(b) << (8 * UInt64(i)) }
        return v
    }

    mutating func i64() throws(Corrupt) -> Int64 { Int64(bitPattern: try u64()) }
    mutating func f32() throws(Corrupt) -> Float { Float(bitPattern: try u32()) }
    mutating func f64() throws(Corrupt) -> Double { Double(bitPattern: try u64()) }

    mutating func length() throws(Corrupt) -> Int {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try u8()
            value |= UInt64(b & 0x7f) << shift
            if b & 0x80 == 0 { break }
            shift += 7
            guard shift < 35 else { throw Corrupt(description: "length too long at offset \(offset)") }
        }
        guard value <= UInt64(bytes.count) else { throw Corrupt(description: "length \(value) beyond the record") }
        return Int(value)
    }

    mutating func varint() throws(Corrupt) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try u8()
            guard shift < 63 || b <= 1 else { throw Corrupt(description: "integer too long at offset \(offset)") }
            value |= UInt64(b & 0x7f) << shift
            if b & 0x80 == 0 { return value }
            shift += 7
        }
    }

    mutating func zigzag() throws(Corrupt) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    mutating func string() throws(Corrupt) -> String {
        let n = try length()
        return String(decoding: try take(n), as: UTF8.self)
    }

    mutating func blob() throws(Corrupt) -> [UInt8] {
        let n = try length()
        return Array(try take(n))
    }

    mutating func optional<T>(_ read: (inout BinaryReader) throws(Corrupt) -> T) throws(Corrupt) -> T? {
        switch try u8() {
        case 0: return nil
        case 1: return try read(&self)
        case let flag: throw Corrupt(description: "bad presence flag \(flag) at offset \(offset - 1)")
        }
    }
}
