import Domain
import LZ4IO

#if canImport(Glibc)
import Glibc
#endif

/// A partition's state on local disk (LZ4 frame): every user's timeline, the partition checkpoint,
/// and the changelog offset the snapshot covers. A restore loads it, then reads only the
/// changelog after that offset, so restarting does not refold or reread the whole history.
public struct PartitionSnapshot: Sendable {
    static let magic: [UInt8] = Array("TSSNAP1\n".utf8)

    public var partition: Int32
    /// The changelog offset from which records are newer than this snapshot.
    public var changelogOffset: Int64
    public var checkpoint: PartitionCheckpoint
    public var timelines: [UserTimeline.Parts]

    public init(partition: Int32, changelogOffset: Int64, checkpoint: PartitionCheckpoint,
                timelines: [UserTimeline.Parts])
    {
        self.partition = partition
        self.changelogOffset = changelogOffset
        self.checkpoint = checkpoint
        self.timelines = timelines
    }

    public func encoded() -> [UInt8] {
        Self.encoded(partition: partition, changelogOffset: changelogOffset, checkpoint: checkpoint,
                     count: timelines.count) { w in
            for parts in timelines { w.blob(TimelineCodec.encode(parts)) }
        }
    }

    /// The snapshot of `fold` as it is, each user encoded from its timeline in place: the bytes of
    /// `PartitionSnapshot(…, timelines: fold.allTimelines().map(\.parts)).encoded()` without copying
    /// every timeline and decoding its tail first.
    public static func encoded(partition: Int32, changelogOffset: Int64, checkpoint: PartitionCheckpoint,
                               fold: PartitionFold) -> [UInt8]
    {
        encoded(partition: partition, changelogOffset: changelogOffset, checkpoint: checkpoint,
                count: fold.userCount) { w in
            fold.forEachTimeline { w.blob(TimelineCodec.encode($0)) }
        }
    }

    private static func encoded(partition: Int32, changelogOffset: Int64, checkpoint: PartitionCheckpoint, count: Int,
                                timelines: (inout BinaryWriter) -> Void) -> [UInt8]
    {
        LZ4Frame.compress(BinaryWriter.bytes { w in
            w.append(magic)
            w.i32(partition)
            w.i64(changelogOffset)
            w.blob(checkpoint.bytes)
            w.length(count)
            timelines(&w)
        })
    }

    public init(decoding compressed: [UInt8]) throws {
        let bytes = try LZ4Frame.decompress(compressed)
        var r = BinaryReader(bytes)
        for expected in Self.magic {
            guard try r.u8() == expected else { throw BinaryReader.Corrupt(description: "not a TripStream snapshot") }
        }
        partition = try r.i32()
        changelogOffset = try r.i64()
        checkpoint = try PartitionCheckpoint(bytes: try r.blob())
        let count = try r.length()
        timelines = []
        timelines.reserveCapacity(count)
        for _ in 0..<count { timelines.append(try TimelineCodec.decode(try r.blob())) }
    }

    // MARK: - Files

    /// `<directory>/partition-<n>.snapshot.lz4`
    public static func path(directory: String, partition: Int32) -> String {
        "\(directory)/partition-\(partition).snapshot.lz4"
    }

    /// Writes atomically: a temporary file renamed over the old snapshot, so a crash leaves
    /// either the old or the new one, never half of one.
    public func write(directory: String) throws {
        try Self.write(encoded(), directory: directory, partition: partition)
    }

    /// Writes a snapshot's bytes (`encoded`) atomically as `write(directory:)` does.
    public static func write(_ encoded: [UInt8], directory: String, partition: Int32) throws {
        let path = Self.path(directory: directory, partition: partition)
        let temporary = path + ".tmp"
        let writer = try FileWriter(path: temporary)
        try writer.write(encoded)
        try writer.synchronize()
        try writer.close()
        guard rename(temporary, path) == 0 else {
            throw LocalFileError.cannotRename(temporary, to: path, reason: LocalFileError.systemReason)
        }
    }

    /// The snapshot of `partition`, nil if there is none; a corrupt file is reported by throwing.
    public static func read(directory: String, partition: Int32) throws -> PartitionSnapshot? {
        let path = Self.path(directory: directory, partition: partition)
        guard access(path, F_OK) == 0 else { return nil }
        return try PartitionSnapshot(decoding: try LocalFile.read(path))
    }
}
