import Domain

/// Encodes a dead letter (`tripstream.dead-letters`, `schemas/dead-letter.schema.json`):
/// `{"reason", "detail", "topic", "partition", "offset", ["file", "line"], "key" | "keyBase64", "value" |
/// "valueBase64", ["valueTruncated", "valueSize", "valueHash"], ["receivedAt"]}`. A key or value that is valid UTF-8 is written as a JSON string (escaped, so the
/// exact bytes come back on decoding); anything else as base64. Absent ones are omitted.
public enum DeadLetterEncoder {
    public static func encode(_ letter: DeadLetter, into buffer: inout [UInt8]) {
        JSONWriter.append(to: &buffer) { w in
            w.raw("{\"reason\":")
            w.string(letter.reason.rawValue)
            w.raw(",\"detail\":")
            w.string(letter.detail)
            w.raw(",\"topic\":")
            w.string(letter.topic)
            w.raw(",\"partition\":")
            w.int(letter.partition)
            w.raw(",\"offset\":")
            w.int(letter.offset)
            if let file = letter.file {
                w.raw(",\"file\":")
                w.string(file)
            }
            if let line = letter.line {
                w.raw(",\"line\":")
                w.int(line)
            }
            if let key = letter.key { w.payload(key, text: ",\"key\":", base64: ",\"keyBase64\":\"") }
            if let value = letter.value { w.payload(value, text: ",\"value\":", base64: ",\"valueBase64\":\"") }
            if let size = letter.originalValueSize, let hash = letter.originalValueHash {
                w.raw(",\"valueTruncated\":true,\"valueSize\":")
                w.int(size)
                w.raw(",\"valueHash\":")
                w.string("fnv1a64:" + String(hash, radix: 16))
            }
            if letter.receivedAt != .min {
                w.raw(",\"receivedAt\":")
                w.timestamp(letter.receivedAt)
            }
            w.byte(UInt8(ascii: "}"))
        }
    }
}

extension JSONWriter {
    /// Original bytes: as a JSON string if they are valid UTF-8, else as base64.
    fileprivate mutating func payload(_ bytes: [UInt8], text: StaticString, base64: StaticString) {
        if UTF8Check.isValid(bytes) {
            raw(text)
            bytes.withUnsafeBytes { string(utf8: $0) }
        } else {
            raw(base64)
            flush()
            Base64.encode(bytes, into: &self.bytes)
            byte(UInt8(ascii: "\""))
        }
    }
}
