import Domain

/// Appends JSON text to a reusable byte buffer.
///
/// Encoders swap the caller's buffer in (`init(taking:)`) and back out (`finish(into:)`), so the
/// buffer's capacity is reused from record to record and nothing is copied. Keys are written as
/// literal fragments (`,"createdAt":`), so each field costs one append.
public struct JSONWriter {
    public var bytes: [UInt8]

    public init(bytes: [UInt8] = []) { self.bytes = bytes }

    /// Moves `buffer`'s storage into a new writer, leaving `buffer` empty.
    public init(taking buffer: inout [UInt8]) {
        bytes = []
        swap(&bytes, &buffer)
    }

    /// Moves the written bytes back into `buffer`.
    public mutating func finish(into buffer: inout [UInt8]) {
        swap(&bytes, &buffer)
    }

    // MARK: - Raw text

    /// Appends literal JSON text, e.g. a key with its colon.
    public mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    public mutating func byte(_ b: UInt8) { bytes.append(b) }

    /// Splices a JSON value kept as source text.
    public mutating func raw(_ json: RawJSON) { bytes.append(contentsOf: json.bytes) }

    public mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    // MARK: - Strings

    /// A quoted string with `"`, `\` and control characters escaped (`\n`, `\t`, … or `\u00XX`);
    /// all other UTF-8 passes through unchanged.
    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { string(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// A quoted string from UTF-8 bytes (assumed valid).
    public mutating func string(utf8: UnsafeRawBufferPointer) {
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        for i in 0..<utf8.count {
            let b = utf8[i]
            guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else { continue }
            if runStart < i { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[runStart..<i])) }
            runStart = i + 1
            escape(b)
        }
        if runStart < utf8.count {
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ b: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(b)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            bytes.append(UInt8(ascii: "u"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(hex.utf8Start[Int(b >> 4)])
            bytes.append(hex.utf8Start[Int(b & 0xF)])
        }
    }

    // MARK: - Fixed-size fields

    /// Appends `count` bytes written by `body` into reserved space.
    mutating func appendFixed(_ count: Int, _ body: (UnsafeMutableRawPointer) -> Void) {
        let old = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: count))
        bytes.withUnsafeMutableBytes { body($0.baseAddress! + old) }
    }

    /// `"2013-07-01T00:00:53.000Z"` (quoted, UTC, milliseconds).
    public mutating func timestamp(_ millis: UnixMillis) {
        withUnsafeTemporaryAllocation(byteCount: 26, alignment: 1) { scratch in
            let p = scratch.baseAddress!
            p.storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
            RFC3339.write(millis, to: p + 1)
            p.storeBytes(of: UInt8(ascii: "\""), toByteOffset: 25, as: UInt8.self)
            bytes.append(contentsOf: UnsafeRawBufferPointer(scratch))
        }
    }

    /// The 24 lowercase hex digits of an event id, quoted.
    public mutating func eventID(_ id: EventID) {
        withUnsafeTemporaryAllocation(byteCount: 26, alignment: 1) { scratch in
            let hex: StaticString = "0123456789abcdef"
            let digits = hex.utf8Start
            scratch[0] = UInt8(ascii: "\"")
            for i in 0..<16 { scratch[1 + i] = digits[Int((id.high >> (60 - 4 * UInt64(i))) & 0xF)] }
            for i in 0..<8 { scratch[17 + i] = digits[Int((id.low >> (28 - 4 * UInt32(i))) & 0xF)] }
            scratch[25] = UInt8(ascii: "\"")
            bytes.append(contentsOf: UnsafeRawBufferPointer(scratch))
        }
    }

    /// A GeoJSON point: `{"type":"Point","coordinates":[lng,lat]}`.
    public mutating func point(_ c: Coordinate) {
        raw("{\"type\":\"Point\",\"coordinates\":[")
        coordinateE7(c.longitudeE7)
        bytes.append(UInt8(ascii: ","))
        coordinateE7(c.latitudeE7)
        raw("]}")
    }
}
