import Domain

/// Reads a dead letter back (`DeadLetterEncoder`'s output), recovering the original key and value
/// bytes exactly, so rejected records can be inspected and replayed.
public enum DeadLetterDecoder {
    public static func decode(_ bytes: [UInt8]) throws(DecodeError) -> DeadLetter {
        try bytes.withUnsafeBytes { buffer in Result { () throws(DecodeError) in try decode(buffer) } }.get()
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> DeadLetter {
        var reader = JSONReader(bytes)
        try reader.expectTopLevelObject()
        var issue: DecodeError?
        var reason: RejectionReason?
        var detail: String?
        var topic: String?
        var partition: Int64?
        var offset: Int64?
        var file: String?
        var line: Int64?
        var key: [UInt8]?
        var value: [UInt8]?
        var receivedAt: UnixMillis?
        var cursor = try reader.beginObject()
        while let k = try reader.nextKey(&cursor) {
            if reader.matches(k, "reason") {
                reason = try reader.enumField("reason", choices: "the rejection reasons", nullable: false, &issue) {
                    bytes in RejectionReason.allCases.first { $0.rawValue.utf8.elementsEqual(bytes) }
                }
            } else if reader.matches(k, "detail") {
                detail = try reader.stringField("detail", maxBytes: .max, allowEmpty: true, &issue)
            } else if reader.matches(k, "topic") {
                topic = try reader.stringField("topic", &issue)
            } else if reader.matches(k, "partition") {
                partition = try reader.integerField("partition", range: 0...Int64(Int32.max), nullable: false, &issue)
            } else if reader.matches(k, "offset") {
                offset = try reader.integerField("offset", range: -2...Int64.max, nullable: false, &issue)
            } else if reader.matches(k, "file") {
                file = try reader.stringField("file", maxBytes: .max, allowEmpty: false, &issue)
            } else if reader.matches(k, "line") {
                line = try reader.integerField("line", range: 1...Int64.max, nullable: false, &issue)
            } else if reader.matches(k, "key") {
                key = try payload("key", base64: false, &reader, &issue)
            } else if reader.matches(k, "keyBase64") {
                key = try payload("keyBase64", base64: true, &reader, &issue)
            } else if reader.matches(k, "value") {
                value = try payload("value", base64: false, &reader, &issue)
            } else if reader.matches(k, "valueBase64") {
                value = try payload("valueBase64", base64: true, &reader, &issue)
            } else if reader.matches(k, "receivedAt") {
                receivedAt = try reader.timestampField("receivedAt", &issue)
            } else {
                try reader.skipValue()
            }
        }
        try reader.finish()
        if let issue { throw issue }
        guard let reason else { throw .missing("reason") }
        guard let topic else { throw .missing("topic") }
        guard let partition else { throw .missing("partition") }
        guard let offset else { throw .missing("offset") }
        var letter = DeadLetter(
            reason: reason, detail: detail ?? "", topic: topic, partition: Int32(partition), offset: offset, key: key,
            value: value, receivedAt: receivedAt ?? .min)
        letter.file = file
        letter.line = line
        return letter
    }

    private static func payload(
        _ field: StaticString, base64: Bool, _ reader: inout JSONReader, _ issue: inout DecodeError?
    ) throws(DecodeError) -> [UInt8]? {
        guard reader.peekKind() == .string else {
            try reader.skipWrongType(field, expected: "a string", &issue)
            return nil
        }
        let token = try reader.readString()
        let bytes = token.hasEscapes ? reader.unescapedBytes(token) : Array(reader.rawBytes(token))
        guard base64 else { return bytes }
        guard let decoded = bytes.withUnsafeBytes({ Base64.decode($0) }) else {
            JSONReader.note(DecodeError(.wrongType, "\(field) is not valid base64"), &issue)
            return nil
        }
        return decoded
    }
}
