import Domain

/// An input TripStream could not use, as published on `tripstream.dead-letters`: why, where it
/// came from, and the original bytes, so it can be inspected, fixed and replayed.
public struct DeadLetter: Sendable, Equatable {
    public var reason: RejectionReason
    public var detail: String
    /// Source topic, partition and offset of the record.
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    /// The record's key and value exactly as received; nil when the record had none.
    public var key: [UInt8]?
    public var value: [UInt8]?
    /// Processing time at which the record was rejected.
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
