import Codec
import Domain

extension InputRecordEncoder {
    /// The Kafka key and value of a record: userId for fixes and commands, `tag/externalId` for geofences.
    public static func encode(_ record: SimulatedRecord, key: inout [UInt8], value: inout [UInt8]) {
        key.removeAll(keepingCapacity: true)
        value.removeAll(keepingCapacity: true)
        switch record {
        case let .geofence(g):
            key.append(contentsOf: g.tag.utf8)
            key.append(UInt8(ascii: "/"))
            key.append(contentsOf: g.externalId.utf8)
            encode(g, into: &value)
        case let .command(c):
            key.append(contentsOf: c.userId.utf8)
            encode(c, into: &value)
        case let .fix(f):
            key.append(contentsOf: f.userId.utf8)
            encode(f, into: &value)
        }
    }
}
