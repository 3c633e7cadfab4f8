import LZ4IO

#if canImport(Glibc)
import Glibc
#endif

/// A partition's open archive file: written under a hidden temporary name, then fsync'd and renamed to its
/// finished name (which carries its offsets) by ``finish()``. Lines are gathered in a buffer and compressed in
/// large pieces.
final class ArchiveFile {
    let directory: String
    let date: String
    let partition: Int32
    let firstOffset: Int64
    private(set) var nextOffset: Int64
    private(set) var records = 0
    private(set) var bytes = 0
    let openedAt: Double
    private(set) var lastWriteAt: Double
    private let temporaryPath: String
    private let writer: LZ4FileWriter
    private var pending: [UInt8] = []
    private static let pendingLimit = 256 << 10

    init(directory: String, date: String, partition: Int32, firstOffset: Int64, now: Double) throws {
        self.directory = directory
        self.date = date
        self.partition = partition
        self.firstOffset = firstOffset
        self.nextOffset = firstOffset
        self.openedAt = now
        self.lastWriteAt = now
        temporaryPath = directory + "/" + ArchiveFileName.temporaryName(partition: partition, firstOffset: firstOffset)
        writer = try LZ4FileWriter(path: temporaryPath)
        pending.reserveCapacity(Self.pendingLimit + 4096)
    }

    /// Appends one record's line.
    func append(_ offset: Int64, timestamp: Int64, key: [UInt8]?, value: [UInt8]?,
                now: Double) throws
    {
        let before = pending.count
        ArchiveLine.append(offset: offset, timestamp: timestamp, key: key, value: value, to: &pending)
        bytes += pending.count - before
        records += 1
        nextOffset = offset + 1
        lastWriteAt = now
        if pending.count >= Self.pendingLimit { try drain() }
    }

    /// Completes the frame, fsyncs, renames the file to its finished name and fsyncs the folder.
    /// - Returns: the finished file's name.
    @discardableResult
    func finish() throws -> String {
        try drain()
        try writer.close(synchronizing: true)
        let name = ArchiveFileName(partition: partition, firstOffset: firstOffset, nextOffset: nextOffset).name
        guard rename(temporaryPath, directory + "/" + name) == 0 else {
            throw LocalFileError.cannotRename(temporaryPath, to: name, reason: LocalFileError.systemReason)
        }
        try ArchiveDirectory.synchronize(directory: directory)
        return name
    }

    private func drain() throws {
        guard !pending.isEmpty else { return }
        try writer.write(pending)
        pending.removeAll(keepingCapacity: true)
    }
}
