import Codec
import Domain

/// A fetched input waiting to be merged into its partition's event-time order, decoded once on
/// arrival (the merge needs its event time; the fold takes the decoded value).
struct PendingInput {
    var key: [UInt8]?
    var value: [UInt8]
    var offset: Int64
    /// The record's Kafka timestamp (ms), -1 when none: where its commit latency is measured from.
    var timestamp: Int64
    /// The poll round that took it (see `PartitionOwner`).
    var round: UInt64
    var decoded: DecodedInput

    var createdAt: UnixMillis { decoded.createdAt }

    static func fix(key: [UInt8]?, value: [UInt8]?, offset: Int64, timestamp: Int64, round: UInt64) -> PendingInput {
        PendingInput(key: key, value: value ?? [], offset: offset, timestamp: timestamp, round: round,
                     decoded: value.map { .fix($0) } ?? .invalid(.nullValue))
    }

    static func command(key: [UInt8]?, value: [UInt8]?, offset: Int64, timestamp: Int64, round: UInt64)
        -> PendingInput
    {
        PendingInput(key: key, value: value ?? [], offset: offset, timestamp: timestamp, round: round,
                     decoded: value.map { .command($0) } ?? .invalid(.nullValue))
    }
}
