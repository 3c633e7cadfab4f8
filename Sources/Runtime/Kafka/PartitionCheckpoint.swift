/// What a partition's changelog says besides user states: the input offsets the states cover and
/// the partition's stream time. Written as the last changelog record of every transaction (key
/// `PartitionCheckpoint.key`), so a restore knows where to resume the inputs.
public struct PartitionCheckpoint: Sendable, Equatable {
    /// The changelog key of checkpoint records; no userId can be this (userIds are non-empty
    /// JSON strings of printable text, this starts with a NUL byte).
    public static let key: [UInt8] = Array("\u{0}partition-checkpoint".utf8)

    /// Where a partition's state stands: next offsets to read and stream time.
    public struct Position: Sendable, Equatable {
        public var locationsOffset: Int64
        public var commandsOffset: Int64
        public var streamTime: Int64
    }

    /// Next offset to read in the fixes topic's partition, and in the trip-commands topic's.
    public var locationsOffset: Int64
    public var commandsOffset: Int64
    public var streamTime: Int64
    /// Where the state this transaction changed stood before it: the partition's previous checkpoint. A
    /// restore from a local snapshot checks that the changelog after it goes on from the snapshot's
    /// checkpoint (an instance that lost the partition without knowing may have written a snapshot that
    /// claims records other owners wrote). Nil in records written before it was kept (version 1).
    public var previous: Position?

    public init(locationsOffset: Int64, commandsOffset: Int64, streamTime: Int64, previous: Position? = nil) {
        self.locationsOffset = locationsOffset
        self.commandsOffset = commandsOffset
        self.streamTime = streamTime
        self.previous = previous
    }

    public var position: Position {
        Position(locationsOffset: locationsOffset, commandsOffset: commandsOffset, streamTime: streamTime)
    }

    public var bytes: [UInt8] {
        BinaryWriter.bytes { w in
            w.u8(2)
            w.i64(locationsOffset)
            w.i64(commandsOffset)
            w.i64(streamTime)
            w.u8(previous == nil ? 0 : 1)
            if let previous {
                w.i64(previous.locationsOffset)
                w.i64(previous.commandsOffset)
                w.i64(previous.streamTime)
            }
        }
    }

    public init(bytes: [UInt8]) throws {
        var r = BinaryReader(bytes)
        let version = try r.u8()
        guard version == 1 || version == 2 else { throw BinaryReader.Corrupt(description: "unknown checkpoint version") }
        self.init(locationsOffset: try r.i64(), commandsOffset: try r.i64(), streamTime: try r.i64())
        if version == 2 {
            switch try r.u8() {
            case 0: break
            case 1: previous = Position(locationsOffset: try r.i64(), commandsOffset: try r.i64(), streamTime: try r.i64())
            default: throw BinaryReader.Corrupt(description: "checkpoint: bad previous marker")
            }
        }
        guard r.isAtEnd else { throw BinaryReader.Corrupt(description: "trailing bytes in checkpoint") }
    }
}
