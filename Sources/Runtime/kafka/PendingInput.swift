import Codec
import Domain

/// A fetched input waiting to be merged into its partition's event-time order. Its event time is
/// read when it arrives; a record that does not decode sorts first (`.min`) and becomes a dead
/// letter when folded, at its place in offset order.
struct PendingInput {
    var key: [UInt8]?
    var value: [UInt8]
    var offset: Int64
    var createdAt: UnixMillis

    static func fix(key: [UInt8]?, value: [UInt8]?, offset: Int64) -> PendingInput {
        let bytes = value ?? []
        let createdAt = (try? FixDecoder.decode(bytes))?.createdAt ?? .min
        return PendingInput(key: key, value: bytes, offset: offset, createdAt: createdAt)
    }

    static func command(key: [UInt8]?, value: [UInt8]?, offset: Int64) -> PendingInput {
        let bytes = value ?? []
        let createdAt = (try? TripCommandDecoder.decode(bytes))?.createdAt ?? .min
        return PendingInput(key: key, value: bytes, offset: offset, createdAt: createdAt)
    }
}
