import struct Foundation.URL
import class Foundation.FileManager
import Codec
import LZ4IO

/// An archive written by `tripstream archive` as a ``ReplayRecordSource``: per partition, the finished files of a
/// folder in offset order, their lines read back with their offsets and Kafka timestamps.
///
/// The range is chosen as offsetsForTimes chooses it on the topics: a partition's records start at the first one
/// (in offset order) whose timestamp is not older than `since`, and end before the first one not older than
/// `until`. Date folders wholly before `since`'s UTC date are not read, nor those after `until`'s.
final class ArchiveReplaySource: ReplayRecordSource {
    private struct File {
        var path: String
        var date: String
        var name: ArchiveFileName
    }

    private let root: String
    private let since: Int64
    private let until: Int64?
    private let log: (String) -> Void
    /// Finished files per stream and partition, in offset order.
    private var files: [ReplayStream: [Int32: [File]]] = [:]
    private(set) var partitions: [Int32] = []
    private(set) var cuts: [HistoryCut] = []
    /// Lines that are not archive lines (skipped, and counted here).
    private(set) var unreadableLines = 0

    init(directory: String, since: Int64, until: Int64?, log: @escaping (String) -> Void) throws {
        root = directory
        self.since = since
        self.until = until
        self.log = log
        guard FileManager.default.fileExists(atPath: directory + "/locations") else {
            throw ReplayError.noArchive(directory: directory)
        }
        for (stream, folder) in [(ReplayStream.fixes, "locations"), (.commands, "trip-commands")] {
            files[stream] = Dictionary(grouping: try Self.finishedFiles(directory + "/" + folder), by: \.name.partition)
                .mapValues { $0.sorted { $0.name.firstOffset < $1.name.firstOffset } }
        }
        partitions = Set(files.values.flatMap(\.keys)).sorted()
        for (stream, byPartition) in files {
            for (partition, list) in byPartition {
                for (previous, next) in zip(list, list.dropFirst()) where previous.name.nextOffset != next.name.firstOffset {
                    log("archive: \(stream == .fixes ? "locations" : "trip-commands") partition \(partition) has "
                        + "offsets \(previous.name.nextOffset)..<\(next.name.firstOffset) in no file")
                }
                // The archive started after records were removed from the topic, and after `since`.
                if let first = list.first, first.name.firstOffset > 0,
                    let timestamp = try Self.firstTimestamp(first.path), timestamp > since
                {
                    cuts.append(HistoryCut(topic: stream == .fixes ? "locations" : "trip-commands",
                                           partition: partition, firstOffset: first.name.firstOffset,
                                           firstTimestamp: timestamp))
                }
            }
        }
        cuts.sort { ($0.topic, $0.partition) < ($1.topic, $1.partition) }
    }

    /// The Kafka timestamp of a file's first line (one block read, not the file).
    private static func firstTimestamp(_ path: String) throws -> Int64? {
        let reader = try LineReader(path: path)
        var batch = LineBatch()
        guard try reader.nextBatch(into: &batch), let line = batch.first else { return nil }
        return ArchiveLine.parse(line.bytes)?.timestamp
    }

    private init(copying source: ArchiveReplaySource) {
        root = source.root
        since = source.since
        until = source.until
        log = source.log
        files = source.files
        partitions = source.partitions
        cuts = source.cuts
    }

    func copyForAnotherThread() throws -> any ReplayRecordSource { ArchiveReplaySource(copying: self) }

    func recordEstimate(_ stream: ReplayStream, partition: Int32) -> Int64 {
        selected(stream, partition).reduce(0) { $0 + $1.name.nextOffset - $1.name.firstOffset }
    }

    func geofenceRecords() throws -> [GeofenceTimeline.Record] {
        var records: [GeofenceTimeline.Record] = []
        for file in try Self.finishedFiles(root + "/geofences") {
            try forEachLine(file) { line in
                records.append(GeofenceTimeline.Record(timestamp: line.timestamp, partition: file.name.partition,
                                                       offset: line.offset, key: line.keyBytes,
                                                       value: line.value.map { Array($0) }))
            }
        }
        return records
    }

    func forEachRecord(_ stream: ReplayStream, partition: Int32,
                       _ body: (Int64, Int64, [UInt8]?, UnsafeRawBufferPointer?) throws -> Void) throws
    {
        var started = false
        for file in selected(stream, partition) {
            var ended = false
            try forEachLine(file) { line in
                guard !ended else { return }
                if !started, line.timestamp >= since { started = true }
                if started, let until, line.timestamp >= until { ended = true }
                guard started, !ended else { return }
                try body(line.offset, line.timestamp, line.keyBytes, line.value)
            }
            if ended { return }
        }
    }

    /// The files of a partition whose date folders may hold records of the range.
    private func selected(_ stream: ReplayStream, _ partition: Int32) -> [File] {
        let first = ArchiveFileName.dateFolder(timestamp: since)
        let last = until.map { ArchiveFileName.dateFolder(timestamp: $0) }
        return (files[stream]?[partition] ?? []).filter { file in
            file.date == "date=unknown" || (file.date >= first && last.map { file.date <= $0 } ?? true)
        }
    }

    private func forEachLine(_ file: File, _ body: (ArchiveLine.Parsed) throws -> Void) throws {
        let reader = try LineReader(path: file.path)
        try reader.forEachLine(onLineTooLong: { long in
            unreadableLines += 1
            log("archive: \(file.path) line \(long.lineNumber) is \(long.byteCount) bytes, over the line limit; skipped")
        }) { line in
            guard let parsed = ArchiveLine.parse(line.bytes) else {
                unreadableLines += 1
                log("archive: \(file.path) line \(line.number) is not an archive line; skipped")
                return
            }
            try body(parsed)
        }
    }

    /// Every finished file under `folder` (any date), unordered.
    private static func finishedFiles(_ folder: String) throws -> [File] {
        var found: [File] = []
        let manager = FileManager.default
        guard let dates = try? manager.contentsOfDirectory(atPath: folder) else { return [] }
        for date in dates where date.hasPrefix("date=") {
            for entry in (try? manager.contentsOfDirectory(atPath: folder + "/" + date)) ?? [] {
                guard let name = ArchiveFileName(parsing: entry) else { continue }
                found.append(File(path: folder + "/" + date + "/" + entry, date: date, name: name))
            }
        }
        return found
    }
}
