/// What a partition's changelog says besides user states: the input offsets the states cover and
/// the partition's stream time. Written as the last changelog record of every transaction (key
/// `PartitionCheckpoint.key`), so a restore knows where to resume the inputs.
public struct PartitionCheckpoint: Sendable, Equatable {
    /// The changelog key of checkpoint records; no userId can be this (userIds are non-empty
    /// JSON strings of printable text, this starts with a NUL byte).
    public static let key: [UInt8] = Array("\u{0}partition-checkpoint".utf8)

    /// Next offset to read in the fixes topic's partition, and in the trip-commands topic's.
    public var locationsOffset: Int64
    public var commandsOffset: Int64
    public var streamTime: Int64

    public init(locationsOffset: Int64, commandsOffset: Int64, streamTime: Int64) {
        self.locationsOffset = locationsOffset
        self.commandsOffset = commandsOffset
        self.streamTime = streamTime
    }

    public var bytes: [UInt8] {
        BinaryWriter.bytes { w in
            w.u8(1)
            w.i64(locationsOffset)
            w.i64(commandsOffset)
            w.i64(streamTime)
        }
    }

    public init(bytes: [UInt8]) throws {
        var r = BinaryReader(bytes)
        guard try r.u8() == 1 else { throw BinaryReader.Corrupt(description: "unknown checkpoint version") }
        self.init(locationsOffset: try r.i64(), commandsOffset: try r.i64(), streamTime: try r.i64())
        guard r.isAtEnd else { throw BinaryReader.Corrupt(description: "trailing bytes in checkpoint") }
    }
}
