import Codec
import Domain
import KafkaIO
import Synchronization

/// The service: consumes fixes and trip commands, folds them per owned partition, and commits
/// outputs, state changelog and input offsets together in one Kafka transaction per interval.
///
/// One thread drives everything (librdkafka clients are not shared across threads here). Per
/// interval: poll → fold → [begin; outputs; flush; changelog + checkpoints; flush; offsets;
/// commit]. Outputs are durable before the changelog record that covers them, so even a broker
/// that cannot abort (librdkafka's mock) can only see outputs repeated after a crash, never lost.
public final class StreamRuntime {
    public private(set) var options: RuntimeOptions
    let metrics: RuntimeMetrics
    let log: (String) -> Void
    private let stopRequested: @Sendable () -> Bool

    var producer: KafkaProducer!
    var consumer: KafkaConsumer!
    var commandsReader: KafkaReader!
    var endProbe: KafkaReader!
    /// Counts polls: inputs remember the round that took them (see `PartitionOwner`).
    var pollRound: UInt64 = 0
    var geofenceFeed: GeofenceFeed!
    var owners: [Int32: PartitionOwner] = [:]
    var output = OutputBatch(newlineSeparated: false)
    /// Counters of partitions given up, so totals survive rebalances.
    var retiredFold = FoldCounters()
    var retiredProcessor = ProcessorCounters()
    var retiredForcedMerges = 0
    var retiredCorruptSegments = 0
    /// Outputs over the producer's size limit, published as dead letters instead.
    var oversizedOutputs = 0
    /// The owned-partition count last given to `metrics`.
    var reportedOwnedPartitions = 0
    var lastCommit = WallClock.monotonic()
    var lastSnapshot = WallClock.monotonic()
    var lastLagCheck = WallClock.monotonic()
    var lastProgress: [Int32: Double] = [:]
    var consumed: [String: Int] = [:]

    /// - Parameter shouldStop: polled between batches; true starts a graceful shutdown.
    public init(options: RuntimeOptions, metrics: RuntimeMetrics, log: @escaping (String) -> Void,
                shouldStop: @escaping @Sendable () -> Bool)
    {
        self.options = options
        self.metrics = metrics
        self.log = log
        self.stopRequested = shouldStop
    }

    /// Runs until `shouldStop` says so, then commits, leaves the group and returns.
    public func run() throws {
        try start()
        defer { shutdown() }
        while !stopRequested() {
            try step()
        }
        // Fold what was fetched, so a graceful stop leaves nothing for the next owner to redo.
        let now = WallClock.now()
        for partition in owners.keys.sorted() {
            owners[partition]!.foldReady(geofences: geofenceFeed.table, now: now, force: true, drain: true,
                                         source: options.topics, into: &output)
        }
        try commitIfNeeded(force: true)
        writeSnapshots()
    }

    // MARK: - Start

    func start() throws {
        // Small requests every commit: Nagle's algorithm with delayed ACKs would add ~40 ms per
        // round trip. A properties file can still say otherwise.
        options.kafka = options.kafka.settingDefault("socket.nagle.disable", "true")
        try ensureTopics()
        geofenceFeed = try GeofenceFeed(configuration: options.kafka, topic: options.topics.geofences, log: log)
        try geofenceFeed.loadAll(timeout: 60)
        log("geofences loaded: \(geofenceFeed.table.count)")

        // Each commit flushes explicitly, so lingering only adds latency.
        let producerConfiguration = options.kafka.settingDefault("linger.ms", "1")
        producer = try KafkaProducer(configuration: producerConfiguration, transactionalId: options.transactionalId)
        try producer.initTransactions(timeout: .seconds(60))

        // A broker holds a fetch that finds nothing for up to fetch.wait.max.ms. Kafka answers early
        // when data arrives; librdkafka's mock (the dev broker) does not, so its default 500 ms would be
        // latency. Idle fetches every 25 ms cost a broker little.
        // librdkafka 2.0 stops fetching when its queue holds queued.min.messages (counted over all
        // partitions) and looks again only a second later: while catching up, that second is lost
        // every 100,000 fixes. Let the byte bound (queued.max.messages.kbytes, 64 MiB) bound memory.
        // A crashed member's partitions move once its session times out: 7 s (librdkafka: 45 s) with a
        // heartbeat a second. max.poll.interval.ms stays 5 min, as restores run between polls. The instance
        // id makes the consumer a static member: restarted within the session, it keeps its partitions
        // and the others are not disturbed (README, "Run against a real Kafka").
        var consumerConfiguration = options.kafka
            .settingDefault("fetch.wait.max.ms", "25")
            .settingDefault("queued.min.messages", "10000000")
            .settingDefault("client.id", "tripstream-\(options.instanceId)")
            .settingDefault("session.timeout.ms", "7000")
            .settingDefault("heartbeat.interval.ms", "1000")
            .settingDefault("max.poll.interval.ms", "300000")
        consumerConfiguration["group.id"] = options.group
        consumer = try KafkaConsumer(
            configuration: consumerConfiguration.settingDefault("group.instance.id", options.instanceId))
        try consumer.subscribe([options.topics.locations])

        var readerConfiguration = consumerConfiguration
        readerConfiguration["group.id"] = options.group + "-commands-reader"
        commandsReader = try KafkaReader(configuration: readerConfiguration)
        // A reader that fetches nothing, so its answers never queue behind a fetch the broker holds.
        endProbe = try KafkaReader(configuration: readerConfiguration)
        // Learn the topics' metadata now: a partition assigned to a client that has not seen its topic
        // waits for librdkafka's next 1 s topic scan before its first fetch, and the probe's first
        // question would wait for the leaders' lookup.
        _ = try? commandsReader.watermarks(topic: options.topics.tripCommands, partition: 0, timeout: .seconds(5))
        _ = try? endProbe.endOffsets([TopicPartition(topic: options.topics.locations, partition: 0),
                                      TopicPartition(topic: options.topics.tripCommands, partition: 0)],
                                     timeout: .seconds(5))
        metrics.update {
            $0.ready = true
            $0.geofences = geofenceFeed.table.count
        }
        log("running: group \(options.group), transactional id \(options.transactionalId)")
    }

    /// Creates missing topics where the broker allows, and checks that the co-partitioned topics
    /// agree on their partition counts.
    func ensureTopics() throws {
        let topics = options.topics
        let admin = try KafkaAdmin(configuration: options.kafka)
        var existing = (try? admin.partitionCounts(topics.all, timeout: .seconds(10))) ?? [:]
        let inputPartitions = Int32(existing[topics.locations] ?? existing[topics.tripCommands] ?? Int(options.partitions))
        let missing = topics.all.filter { existing[$0] == nil }
        if !missing.isEmpty {
            let specs = missing.map { name in
                TopicSpec(name: name, partitions: name == topics.geofences ? 3 : inputPartitions, replicationFactor: -1,
                          config: topics.compacted.contains(name) ? ["cleanup.policy": "compact"] : [:])
            }
            do {
                let created = try admin.createTopics(specs, timeout: .seconds(10))
                if !created.isEmpty { log("created topics: \(created.joined(separator: ", "))") }
            } catch {
                log("warning: could not create topics \(missing.joined(separator: ", ")): \(error)")
            }
            existing = (try? admin.partitionCounts(topics.all, timeout: .seconds(10))) ?? existing
        }
        let coPartitioned = [topics.locations, topics.tripCommands, topics.stateChangelog]
        let counts = coPartitioned.compactMap { name in existing[name].map { (name, $0) } }
        if Set(counts.map(\.1)).count > 1 {
            let described = counts.map { "\($0.0) has \($0.1)" }.joined(separator: ", ")
            throw ReplayError("topics keyed by userId must have equal partition counts: \(described)")
        }
    }

    // MARK: - The loop

    func step() throws {
        pollRound += 1
        let records = try consumer.poll(maxRecords: options.maxPollRecords, timeout: .milliseconds(20))
        let justAssigned = try handleRebalance()
        for record in records {
            guard !justAssigned.contains(record.partition) else { continue }  // fetched before the seek
            owners[record.partition]?.take(fix: record, round: pollRound)
        }
        if !owners.isEmpty {
            for record in try commandsReader.poll(maxRecords: options.maxPollRecords, timeout: .zero) {
                owners[record.partition]?.take(command: record, round: pollRound)
            }
            confirmEnds()
        }
        let geofencesChanged = try geofenceFeed.poll(into: &output)
        if geofencesChanged { metrics.update { $0.geofences = geofenceFeed.table.count } }

        let started = WallClock.monotonic()
        let now = WallClock.now()
        for partition in owners.keys.sorted() {
            let waited = started - (lastProgress[partition] ?? started)
            let before = owners[partition]!.locationsOffset + owners[partition]!.commandsOffset
            owners[partition]!.foldReady(
                geofences: geofenceFeed.table, now: now, force: waited * 1000 > Double(options.mergeWait),
                source: options.topics, into: &output)
            let after = owners[partition]!.locationsOffset + owners[partition]!.commandsOffset
            if after != before || owners[partition]!.pendingCount == 0 { lastProgress[partition] = started }
        }
        if options.idleAdvance > 0 {
            for partition in owners.keys.sorted() {
                owners[partition]!.advanceIfIdle(now: now, idle: options.idleAdvance, geofences: geofenceFeed.table,
                                                 into: &output)
            }
        }
        if !records.isEmpty {
            let seconds = WallClock.monotonic() - started
            metrics.update { $0.foldBatchSeconds.observe(seconds) }
        }
        try commitIfNeeded(force: false)
        if WallClock.monotonic() - lastLagCheck > 5 { updateLag() }
    }

    /// Asks the brokers where the streams that some head waits on end (one request per topic), now
    /// that this round's records are taken.
    func confirmEnds() {
        let topics = options.topics
        let waitingOnFixes = owners.keys.filter { owners[$0]!.awaitsFixesEnd }
        let waitingOnCommands = owners.keys.filter { owners[$0]!.awaitsCommandsEnd }
        guard !waitingOnFixes.isEmpty || !waitingOnCommands.isEmpty else { return }
        let fixEnds = streamEnds(topics.locations, waitingOnFixes) { try consumer.positions($0) }
        let commandEnds = streamEnds(topics.tripCommands, waitingOnCommands) { try commandsReader.positions($0) }
        for partition in Set(waitingOnFixes + waitingOnCommands) {
            owners[partition]!.confirmEnds(fixes: fixEnds[partition], commands: commandEnds[partition], round: pollRound)
        }
    }

    private func streamEnds(_ topic: String, _ partitions: [Int32],
                            positions: ([TopicPartition]) throws -> [TopicPartition: Int64])
        -> [Int32: PartitionOwner.StreamEnd]
    {
        guard !partitions.isEmpty else { return [:] }
        let asked = partitions.map { TopicPartition(topic: topic, partition: $0) }
        // On failure the heads keep waiting (past `mergeWait` they are folded anyway); a short timeout
        // keeps an unreachable leader from stalling the other partitions.
        guard let ends = try? endProbe.endOffsets(asked, timeout: .milliseconds(200)) else { return [:] }
        let known = (try? positions(asked)) ?? [:]
        var result: [Int32: PartitionOwner.StreamEnd] = [:]
        for (partition, end) in ends { result[partition.partition] = .init(end: end, position: known[partition]) }
        return result
    }

    func updateLag() {
        lastLagCheck = WallClock.monotonic()
        var lag: [Int32: Int64] = [:]
        for (partition, owner) in owners {
            if let marks = try? consumer.watermarks(topic: options.topics.locations, partition: partition,
                                                    timeout: .milliseconds(500))
            {
                lag[partition] = max(0, marks.high - owner.locationsOffset)
            }
        }
        metrics.update { $0.lag = lag }
    }

    // MARK: - Shutdown

    func shutdown() {
        metrics.update { $0.ready = false }
        try? consumer?.close()  // leaves the group; the revocation it triggers needs no commit now
        _ = consumer?.takeRebalanceEvents()
        owners.removeAll()
        try? commandsReader?.close()
        try? endProbe?.close()
        geofenceFeed?.close()
        _ = try? producer?.flush(timeout: .seconds(10))
        log("stopped")
    }
}
