import KafkaIO

/// The input topics as a ``ReplayRecordSource``: an assign-based `read_committed` reader that joins no group and
/// commits nothing. The range of each partition is fixed at start: from the first record whose Kafka timestamp is
/// not older than `since` (offsetsForTimes) to the first not older than `until`, or to the end offsets at start.
final class KafkaReplaySource: ReplayRecordSource {
    private let reader: KafkaReader
    private let configuration: KafkaConfiguration
    private let topics: Topics
    let partitions: [Int32]
    /// Per partition of locations and of trip commands: [first, end).
    private var ranges: [TopicPartition: Range<Int64>] = [:]
    private(set) var cuts: [HistoryCut] = []
    /// How long a partition may give nothing before its end is reached, before the replay gives up.
    private let stallTimeout: Double = 60

    init(configuration: KafkaConfiguration, topics: Topics, since: Int64, until: Int64?, partitions: [Int32]?) throws {
        // As `run`'s consumers (StreamRuntime): the mock holds an empty fetch for fetch.wait.max.ms, and librdkafka
        // 2.0 pauses a second every queued.min.messages. One partition is read at a time: fetch more of it at once.
        self.configuration = configuration.inGroupByDefault("tripstream-replay").fetchingEagerly()
            .fetchingLargePartitionBatches()
        reader = try KafkaReader(configuration: self.configuration)
        self.topics = topics
        let timeout = Duration.seconds(30)
        guard let fixes = try reader.partitionCount(topic: topics.locations, timeout: timeout) else {
            throw ReplayError.topicMissing(topics.locations)
        }
        let commands = try reader.partitionCount(topic: topics.tripCommands, timeout: timeout)
        if let commands, commands != fixes {
            throw ReplayError.partitionCountsDiffer(fixesTopic: topics.locations, fixes: fixes, commandsTopic: topics.tripCommands, commands: commands)
        }
        self.partitions = (0..<Int32(fixes)).map { $0 }
        let selected = partitions ?? (0..<Int32(fixes)).map { $0 }
        if let outside = selected.first(where: { $0 >= Int32(fixes) }) {
            throw ReplayError.partitionNotInTopic(partition: outside, topic: topics.locations, partitions: fixes)
        }
        // Offsets are asked before anything is assigned: a reader with a waiting fetch answers late.
        var wanted = selected.map { TopicPartition(topic: topics.locations, partition: $0) }
        if commands != nil { wanted += selected.map { TopicPartition(topic: topics.tripCommands, partition: $0) } }
        guard !wanted.isEmpty else { return }
        let lastOffsets = try reader.endOffsets(wanted, timeout: timeout)
        let starts = try offsets(at: since, of: wanted, ends: lastOffsets)
        let ends = try until.map { try offsets(at: $0, of: wanted, ends: lastOffsets) } ?? lastOffsets
        for partition in wanted {
            guard let start = starts[partition], let end = ends[partition] else {
                throw ReplayError.noOffsets(partition: "\(partition)")
            }
            ranges[partition] = start..<max(start, end)
        }
        cuts = try cuts(since: since)
    }

    /// The partitions whose range starts at the first record held, later than `since`, with records before it
    /// gone (a low watermark above 0).
    private func cuts(since: Int64) throws -> [HistoryCut] {
        var candidates: [TopicPartition: Range<Int64>] = [:]
        for (partition, range) in ranges where !range.isEmpty {
            let low = try reader.watermarks(topic: partition.topic, partition: partition.partition,
                                            timeout: .seconds(30)).low
            if low > 0, range.lowerBound == low { candidates[partition] = range }
        }
        guard !candidates.isEmpty else { return [] }
        let heads = try firstRecords(from: candidates.mapValues(\.lowerBound), before: candidates.mapValues(\.upperBound))
        try reader.unassign()
        return heads.filter { $0.value.timestamp > since }
            .map { HistoryCut(topic: $0.key.topic, partition: $0.key.partition, firstOffset: $0.value.offset,
                              firstTimestamp: $0.value.timestamp) }
            .sorted { ($0.topic, $0.partition) < ($1.topic, $1.partition) }
    }

    private init(copying source: KafkaReplaySource) throws {
        configuration = source.configuration
        reader = try KafkaReader(configuration: configuration)
        topics = source.topics
        partitions = source.partitions
        ranges = source.ranges
        cuts = source.cuts
    }

    func copyForAnotherThread() throws -> any ReplayRecordSource { try KafkaReplaySource(copying: self) }

    /// How many partitions' offsets were found by searching record timestamps (the broker gave none).
    private(set) var searchedPartitions = 0

    /// Per partition, the first offset whose record timestamp is not older than `timestamp` (its end if none):
    /// the broker's answer (offsetsForTimes), or, where it gives none (librdkafka's mock cluster does not index
    /// timestamps), a binary search on record timestamps between the low watermark and the end, which takes the
    /// timestamps as non-decreasing in offset order (true of LogAppendTime, and of CreateTime from one producer).
    private func offsets(at timestamp: Int64, of partitions: [TopicPartition], ends: [TopicPartition: Int64]) throws
        -> [TopicPartition: Int64]
    {
        var found = try reader.offsets(at: timestamp, of: partitions, timeout: .seconds(30))
        let missing = partitions.filter { found[$0] == nil && ends[$0] != nil }
        guard !missing.isEmpty else { return found }
        searchedPartitions += missing.count
        // The answer of each partition lies in bounds.lowerBound...bounds.upperBound.
        var bounds: [TopicPartition: ClosedRange<Int64>] = [:]
        for partition in missing {
            let low = try reader.watermarks(topic: partition.topic, partition: partition.partition,
                                            timeout: .seconds(30)).low
            bounds[partition] = min(max(low, 0), ends[partition]!)...ends[partition]!
        }
        // The first record first: a range that starts before the partition's history ends the search at once.
        let nonEmpty = bounds.filter { $0.value.lowerBound < $0.value.upperBound }
        let firsts = try firstRecords(from: nonEmpty.mapValues(\.lowerBound), before: nonEmpty.mapValues(\.upperBound))
        for (partition, range) in nonEmpty {
            guard let head = firsts[partition] else {
                bounds[partition] = range.upperBound...range.upperBound
                continue
            }
            bounds[partition] = head.timestamp >= timestamp ? range.lowerBound...range.lowerBound
                : (head.offset + 1)...range.upperBound
        }
        while case let open = bounds.filter({ $0.value.lowerBound < $0.value.upperBound }), !open.isEmpty {
            let middles = open.mapValues { $0.lowerBound + ($0.upperBound - $0.lowerBound) / 2 }
            let heads = try firstRecords(from: middles, before: open.mapValues(\.upperBound))
            for (partition, middle) in middles {
                let range = open[partition]!
                if let head = heads[partition], head.timestamp < timestamp {
                    bounds[partition] = (head.offset + 1)...range.upperBound
                } else {
                    bounds[partition] = range.lowerBound...middle
                }
            }
        }
        for (partition, range) in bounds { found[partition] = range.lowerBound }
        try reader.unassign()
        return found
    }

    /// The first record at or after each start and before each end, with its timestamp; absent when there is none.
    private func firstRecords(from starts: [TopicPartition: Int64], before ends: [TopicPartition: Int64]) throws
        -> [TopicPartition: (offset: Int64, timestamp: Int64)]
    {
        var heads: [TopicPartition: (offset: Int64, timestamp: Int64)] = [:]
        var waiting = Set(starts.keys)
        try reader.assign(starts.map { ($0.key, .offset($0.value)) })
        var lastProgress = WallClock.monotonic()
        while !waiting.isEmpty {
            for record in try reader.poll(maxRecords: 1_000, timeout: .milliseconds(100)) {
                let partition = TopicPartition(topic: record.topic, partition: record.partition)
                guard waiting.contains(partition), record.offset >= starts[partition]! else { continue }
                if record.offset < ends[partition]! { heads[partition] = (record.offset, record.timestamp) }
                waiting.remove(partition)
                lastProgress = WallClock.monotonic()
            }
            // No record is coming for a partition whose position passed its end (transaction markers only).
            let positions = try reader.positions(Array(waiting))
            waiting = waiting.filter { (positions[$0] ?? -1) < ends[$0]! }
            if WallClock.monotonic() - lastProgress > stallTimeout {
                throw ReplayError.stalledSearchingTimestamps(partitions: waiting.map(\.description).sorted())
            }
        }
        return heads
    }

    func recordEstimate(_ stream: ReplayStream, partition: Int32) -> Int64 {
        Int64(ranges[topicPartition(stream, partition)]?.count ?? 0)
    }

    func geofenceRecords() throws -> [GeofenceTimeline.Record] {
        guard let count = try reader.partitionCount(topic: topics.geofences, timeout: .seconds(30)) else { return [] }
        let partitions = (0..<Int32(count)).map { TopicPartition(topic: topics.geofences, partition: $0) }
        try reader.unassign()
        let ends = try reader.endOffsets(partitions, timeout: .seconds(30))
        var records: [GeofenceTimeline.Record] = []
        try read(partitions.compactMap { partition in ends[partition].map { (partition, 0..<$0) } }, from: .beginning) {
            record in
            records.append(GeofenceTimeline.Record(timestamp: record.timestamp, partition: record.partition,
                                                   offset: record.offset, key: record.key, value: record.value))
        }
        return records
    }

    func forEachRecord(_ stream: ReplayStream, partition: Int32,
                       _ body: (Int64, Int64, [UInt8]?, UnsafeRawBufferPointer?) throws -> Void) throws
    {
        let topicPartition = topicPartition(stream, partition)
        guard let range = ranges[topicPartition], !range.isEmpty else { return }
        try read([(topicPartition, range)], from: .offset(range.lowerBound)) { record in
            if let value = record.value {
                try value.withUnsafeBytes { try body(record.offset, record.timestamp, record.key, $0) }
            } else {
                try body(record.offset, record.timestamp, record.key, nil)
            }
        }
    }

    private func topicPartition(_ stream: ReplayStream, _ partition: Int32) -> TopicPartition {
        TopicPartition(topic: stream == .fixes ? topics.locations : topics.tripCommands, partition: partition)
    }

    /// Reads `partitions` from `start` (or their ranges' first offsets) until every one reaches its range's end.
    private func read(_ partitions: [(TopicPartition, Range<Int64>)], from start: KafkaReader.StartOffset,
                      _ body: (ConsumedRecord) throws -> Void) throws
    {
        var remaining = Dictionary(uniqueKeysWithValues: partitions.filter { !$0.1.isEmpty })
        guard !remaining.isEmpty else { return }
        try reader.assign(remaining.map { ($0.key, start) })
        defer { try? reader.unassign() }
        var lastProgress = WallClock.monotonic()
        while !remaining.isEmpty {
            let records = try reader.poll(maxRecords: 10_000, timeout: .milliseconds(200))
            for record in records {
                let partition = TopicPartition(topic: record.topic, partition: record.partition)
                guard let range = remaining[partition], record.offset < range.upperBound else { continue }
                try body(record)
            }
            // Under read_committed the last offsets may be transaction markers, never returned: the position says.
            let positions = try reader.positions(Array(remaining.keys))
            let before = remaining.count
            remaining = remaining.filter { (positions[$0.key] ?? -1) < $0.value.upperBound }
            let now = WallClock.monotonic()
            if !records.isEmpty || remaining.count < before { lastProgress = now }
            if now - lastProgress > stallTimeout {
                throw ReplayError.stalled(seconds: Int(stallTimeout), partitions: remaining.keys.map(\.description).sorted())
            }
        }
    }
}
