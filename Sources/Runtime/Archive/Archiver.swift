import KafkaIO

/// Copies the input topics into time-partitioned LZ4 NDJSON files (`tripstream archive`).
///
/// Progress lives in the file names only: each finished file names its partition, first offset and next offset,
/// so a start resumes every partition at the largest next offset found, after deleting the unfinished
/// (temporary) files of a crash. One file per partition is open at a time, and files are finished in offset order,
/// so the finished files of a partition always cover a gap-free prefix of what was read: nothing is lost or
/// doubled across restarts. A file holds records of one UTC date (their Kafka timestamp); it is closed on a date
/// change, after ``ArchiveOptions/maxRecordsPerFile`` records or ``ArchiveOptions/maxBytesPerFile`` bytes, when
/// idle for ``ArchiveOptions/idleClose`` and when older than ``ArchiveOptions/maxFileAge``.
public final class Archiver {
    private let options: ArchiveOptions
    private let reader: any PartitionReader
    private let clock: any Clock
    private let log: (String) -> Void
    private var directory: ArchiveDirectory
    private var streams: [String: ArchiveStream] = [:]
    /// Partitions assigned per topic.
    private var partitionCounts: [String: Int32] = [:]
    private var open: [TopicPartition: ArchiveFile] = [:]
    private var summary = ArchiveSummary()
    /// Test hook: abandon the run, files left unfinished, once this many records are written.
    package var _abandonAfterRecords: Int?

    /// Takes the directory's lock; call ``run(shouldStop:)`` next.
    public init(options: ArchiveOptions, reader: any PartitionReader, clock: any Clock = SystemClock(),
                log: @escaping (String) -> Void) throws
    {
        self.options = options
        self.reader = reader
        self.clock = clock
        self.log = log
        directory = try ArchiveDirectory(root: options.directory)
        for stream in options.streams { streams[stream.topic] = stream }
    }

    deinit { directory.unlock() }

    /// A reader on `options.kafka` for ``init(options:reader:clock:log:)``.
    public static func makeReader(_ options: ArchiveOptions) throws -> KafkaReader {
        try KafkaReader(configuration: options.kafka.inGroupByDefault("tripstream-archive"))
    }

    /// Archives until `shouldStop` returns true (checked between polls) or, with ``ArchiveOptions/untilEnd``, until
    /// caught up; then finishes every open file and releases the directory's lock. Call it once.
    public func run(shouldStop: () -> Bool) throws -> ArchiveSummary {
        defer { directory.unlock() }
        var resume: [TopicPartition: Int64] = [:]
        for stream in options.streams {
            for (partition, offset) in try directory.recover(folder: stream.folder, log: { line in
                summary.leftoversDeleted += 1
                log(line)
            }) {
                resume[TopicPartition(topic: stream.topic, partition: partition)] = offset
            }
        }
        // Ends are asked before anything is assigned: a reader with a waiting fetch answers late.
        var partitions = try discoverPartitions()
        var ends: [TopicPartition: Int64] = [:]
        if options.untilEnd, !partitions.isEmpty {
            ends = try reader.endOffsets(partitions, timeout: .seconds(30))
            ends = ends.filter { $0.value > (resume[$0.key] ?? 0) }
        }
        try reader.assign(partitions.map { ($0, resume[$0].map { .offset($0) } ?? .beginning) })
        log("archive: \(partitions.count) partitions, \(resume.count) resumed from finished files")
        var lastCheck = clock.monotonic()
        while !shouldStop() {
            let records = try reader.poll(maxRecords: 10_000, timeout: .milliseconds(200))
            let now = clock.monotonic()
            for record in records {
                try append(record, now: now)
                if let limit = _abandonAfterRecords, summary.totalRecords >= limit {
                    summary.abandoned = true
                    open.removeAll()  // each temporary file is closed as is, never renamed: a crash's leftovers
                    return summary
                }
            }
            try closeQuiet(now: now)
            if options.untilEnd {
                if ends.isEmpty { break }
                let positions = try reader.positions(Array(ends.keys))
                ends = ends.filter { (positions[$0.key] ?? -1) < $0.value }
                if ends.isEmpty { break }
            } else if (now - lastCheck) * 1000 >= Double(options.partitionCheckInterval) {
                lastCheck = now
                let added = Set(try discoverPartitions()).subtracting(partitions)
                if !added.isEmpty {
                    try reader.add(added.sorted().map { ($0, .beginning) })
                    partitions += added
                    log("archive: \(added.count) new partitions")
                }
            }
        }
        for partition in open.keys.sorted() { try finish(partition) }
        return summary
    }

    // MARK: - Files

    private func append(_ record: ConsumedRecord, now: Double) throws {
        guard let stream = streams[record.topic] else { return }
        let partition = TopicPartition(topic: record.topic, partition: record.partition)
        let date = ArchiveFileName.dateFolder(timestamp: record.timestamp)
        if let file = open[partition], file.date != date { try finish(partition) }
        let file: ArchiveFile
        if let current = open[partition] {
            file = current
        } else {
            let folder = options.directory + "/" + stream.folder + "/" + date
            try ReplayJob.makeDirectory(folder)
            file = try ArchiveFile(directory: folder, date: date, partition: record.partition,
                                   firstOffset: record.offset, now: now)
            open[partition] = file
        }
        let before = file.bytes
        try file.append(record.offset, timestamp: record.timestamp, key: record.key,
                        value: record.value, now: now)
        summary.records[stream.folder, default: 0] += 1
        summary.bytes += file.bytes - before
        if file.records >= options.maxRecordsPerFile || file.bytes >= options.maxBytesPerFile {
            try finish(partition)
        }
    }

    /// Finishes files idle for `idleClose` or open for `maxFileAge`.
    private func closeQuiet(now: Double) throws {
        let idle = Double(options.idleClose) / 1000, age = Double(options.maxFileAge) / 1000
        for (partition, file) in open where now - file.lastWriteAt >= idle || now - file.openedAt >= age {
            try finish(partition)
        }
    }

    private func finish(_ partition: TopicPartition) throws {
        guard let file = open.removeValue(forKey: partition) else { return }
        try file.finish()
        summary.filesFinished += 1
    }

    /// Every partition of the archived topics; a missing topic is logged and skipped.
    private func discoverPartitions() throws -> [TopicPartition] {
        var partitions: [TopicPartition] = []
        for stream in options.streams {
            guard let count = try reader.partitionCount(topic: stream.topic, timeout: .seconds(10)) else {
                if partitionCounts[stream.topic] == nil { log("archive: topic \(stream.topic) does not exist (yet)") }
                continue
            }
            partitionCounts[stream.topic] = Int32(count)
            partitions += (0..<Int32(count)).map { TopicPartition(topic: stream.topic, partition: $0) }
        }
        return partitions
    }
}
