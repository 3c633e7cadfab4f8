import Codec

/// The NDJSON line written for one record.
///
/// - `value` (locations, trip commands): the record value as is, so `tripstream replay -f/-c` reads the files.
/// - `keyed` (geofences, a compacted topic where keys and deletes matter):
///   `{"offset":O,"timestamp":T,"key":"tag/externalId","value":{…}}`, `"value":null` for a delete (a null or
///   empty value), `"key":null` for a record without key. The value is embedded as is and comes last, so a reader
///   can take the bytes between `"value":` and the final `}`. `timestamp` is the Kafka timestamp (ms since 1970).
///
/// Either way a carriage return or line feed inside a value becomes a space (JSON whitespace outside strings, and
/// invalid inside them), so one record is always one line.
enum ArchiveLine {
    enum Format: Hashable { case value, keyed }

    /// Appends the line for `record`, with its newline, to `buffer`.
    static func append(_ format: Format, offset: Int64, timestamp: Int64, key: [UInt8]?, value: [UInt8]?,
                       to buffer: inout [UInt8])
    {
        switch format {
        case .value:
            if let value { appendFlattened(value, to: &buffer) }
        case .keyed:
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
        }
        buffer.append(UInt8(ascii: "\n"))
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
