import Domain

/// An input TripStream could not use, as published on `tripstream.dead-letters`: why, where it
/// came from, and the original bytes, so it can be inspected, fixed and replayed.
public struct DeadLetter: Sendable, Equatable {
    public var reason: RejectionReason
    public var detail: String
    /// Source topic, partition and offset of the record. From a file (a replay), `topic` is the topic the
    /// file stands for, `offset` -1, and `file` and `line` say where it is.
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    /// The file the record was read from, for a replay of files; nil for a record from Kafka.
    public var file: String?
    /// Its line in `file`, from 1.
    public var line: Int64?
    /// The record's key and value exactly as received (the value's first `maximumValueBytes` when
    /// it is longer); nil when the record had none.
    public var key: [UInt8]?
    public var value: [UInt8]?
    /// When `value` was cut: the original's size and FNV-1a 64 hash, to find it again upstream.
    public var originalValueSize: Int?
    public var originalValueHash: UInt64?

    /// Values kept whole up to this size: a dead letter must stay far below any broker's message
    /// size limit, or the dead letter of a huge record would itself be refused, forever.
    public static let maximumValueBytes = 16 * 1024
    /// Processing time at which the record was rejected; `.min` when there is none (a file replay's
    /// partition before its first fix, which has no stream time yet), and then not written.
    public var receivedAt: UnixMillis

    public init(
        reason: RejectionReason, detail: String, topic: String, partition: Int32, offset: Int64, key: [UInt8]?,
        value: [UInt8]?, receivedAt: UnixMillis
    ) {
        self.reason = reason
        self.detail = detail
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.receivedAt = receivedAt
    }

    /// This dead letter as published: a value over `maximumValueBytes` cut to its first bytes, with
    /// the original's size and hash (and a key likewise cut, though keys are rarely that long).
    public func capped() -> DeadLetter {
        var letter = self
        if let key, key.count > Self.maximumValueBytes { letter.key = Array(key.prefix(Self.maximumValueBytes)) }
        if let value, value.count > Self.maximumValueBytes {
            letter.value = Array(value.prefix(Self.maximumValueBytes))
            letter.originalValueSize = value.count
            var hasher = StableHasher()
            for byte in value { hasher.combine(byte) }
            letter.originalValueHash = hasher.fnv1a
        }
        return letter
    }

    /// A dead letter for a decoding failure.
    public init(
        _ error: DecodeError, topic: String, partition: Int32, offset: Int64, key: [UInt8]?, value: [UInt8]?,
        receivedAt: UnixMillis
    ) {
        self.init(
            reason: error.reason, detail: error.detail, topic: topic, partition: partition, offset: offset, key: key,
            value: value, receivedAt: receivedAt)
    }
}
