import Codec

#if canImport(Glibc)
import Glibc
#endif

/// The NDJSON line written for one record, for every archived topic:
/// `{"offset":O,"timestamp":T,"key":"…","value":{…}}`. `timestamp` is the Kafka timestamp (ms since 1970), which
/// `tripstream replay --archive` selects and orders by, as a replay of the topics does; `"value":null` for a null or
/// empty value (a geofence delete), `"key":null` for a record without a key. The value is embedded as is and comes
/// last, so a reader takes the bytes between `"value":` and the final `}` (``parse(_:)``).
///
/// A carriage return or line feed inside a value becomes a space (JSON whitespace outside strings, and invalid
/// inside them), so one record is always one line.
enum ArchiveLine {
    /// Appends the line for `record`, with its newline, to `buffer`.
    static func append(offset: Int64, timestamp: Int64, key: [UInt8]?, value: [UInt8]?, to buffer: inout [UInt8]) {
        JSONWriter.append(to: &buffer) { json in
            json.raw("{\"offset\":")
            json.int(offset)
            json.raw(",\"timestamp\":")
            json.int(timestamp)
            json.raw(",\"key\":")
            if let key {
                key.withUnsafeBytes { json.string(utf8: $0) }
            } else {
                json.raw("null")
            }
            json.raw(",\"value\":")
        }
        if let value, !value.isEmpty { appendFlattened(value, to: &buffer) } else { buffer += "null".utf8 }
        buffer.append(UInt8(ascii: "}"))
        buffer.append(UInt8(ascii: "\n"))
    }

    /// A line read back: its offset, timestamp, key bytes as written (a JSON string or `null`) and value bytes
    /// (nil for `null`).
    struct Parsed {
        var offset: Int64
        var timestamp: Int64
        var key: UnsafeRawBufferPointer
        var value: UnsafeRawBufferPointer?

        /// The key's bytes, unescaped; nil for `null` or a key that does not read.
        var keyBytes: [UInt8]? {
            guard key.first == UInt8(ascii: "\"") else { return nil }
            var reader = JSONReader(key)
            guard let token = try? reader.readString() else { return nil }
            return reader.unescapedBytes(token)
        }
    }

    /// Reads a line written by ``append(offset:timestamp:key:value:to:)``; nil for anything else.
    static func parse(_ line: UnsafeRawBufferPointer) -> Parsed? {
        var position = 0
        func expect(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard position + count <= line.count,
                memcmp(line.baseAddress! + position, text.utf8Start, count) == 0
            else { return false }
            position += count
            return true
        }
        func integer() -> Int64? {
            let negative = position < line.count && line[position] == UInt8(ascii: "-")
            if negative { position += 1 }
            var value: Int64 = 0, digits = 0
            while position < line.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(line[position]), digits < 18 {
                value = value * 10 + Int64(line[position] - UInt8(ascii: "0"))
                position += 1
                digits += 1
            }
            return digits == 0 ? nil : (negative ? -value : value)
        }
        guard line.count > 0, expect("{\"offset\":"), let offset = integer(), expect(",\"timestamp\":"),
            let timestamp = integer(), expect(",\"key\":")
        else { return nil }
        let keyStart = position
        if !expect("null") {
            guard expect("\"") else { return nil }
            while position < line.count, line[position] != UInt8(ascii: "\"") {
                position += line[position] == UInt8(ascii: "\\") ? 2 : 1
            }
            guard position < line.count else { return nil }
            position += 1
        }
        let key = UnsafeRawBufferPointer(rebasing: line[keyStart..<position])
        guard expect(",\"value\":"), line[line.count - 1] == UInt8(ascii: "}") else { return nil }
        let value = UnsafeRawBufferPointer(rebasing: line[position..<(line.count - 1)])
        let isNull = value.count == 4 && memcmp(value.baseAddress!, "null", 4) == 0
        return Parsed(offset: offset, timestamp: timestamp, key: key, value: isNull ? nil : value)
    }

    private static func appendFlattened(_ value: [UInt8], to buffer: inout [UInt8]) {
        let start = buffer.count
        buffer += value
        guard value.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return }
        for index in start..<buffer.count where buffer[index] == 0x0A || buffer[index] == 0x0D {
            buffer[index] = UInt8(ascii: " ")
        }
    }
}
