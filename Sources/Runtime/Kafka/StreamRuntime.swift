import Codec
import Domain
import KafkaIO
import Synchronization

/// The service: consumes fixes and trip commands, folds them per owned partition, and commits
/// outputs, state changelog and input offsets together in one Kafka transaction per interval.
///
/// Three kinds of threads. The driver (the caller of `run`) polls the consumers, handles
/// rebalances, seals transactions and applies their outcomes. Fold threads (`--threads`, the
/// driver included) fold the owned partitions, each partition on one thread per round. The
/// committer thread owns the transactional producer: while it commits transaction N
/// [begin; outputs; flush; changelog + checkpoints; flush; offsets; commit], the fold goes on into
/// transaction N+1, which is sealed once N ended. Outputs are durable before the changelog record
/// that covers them, so even a broker that cannot abort (librdkafka's mock) can only see outputs
/// repeated after a crash, never lost. docs/exactly-once.md gives the whole argument.
public final class StreamRuntime {
    public private(set) var options: RuntimeOptions
    let metrics: RuntimeMetrics
    let log: @Sendable (String) -> Void
    private let stopRequested: @Sendable () -> Bool
    let broker: any Broker
    let clock: any Clock

    var committer: TransactionCommitter!
    var consumer: (any InputLog)!
    var commandsReader: (any PartitionReader)!
    var endProbe: (any PartitionReader)!
    var foldThreads: ForkJoinThreads!
    var snapshotWriter: SnapshotWriter!
    /// Counts polls: inputs remember the round that took them (see `StreamMerge`).
    var pollRound: UInt64 = 0
    var geofenceFeed: GeofenceFeed!
    var owners: [Int32: PartitionOwner] = [:]
    /// Partitions sought (assigned from a checkpoint, or rebuilt) since this round's poll: the
    /// records it fetched for them predate the seek, which fetches them again.
    var soughtSincePoll = Set<Int32>()
    /// Owned partitions whose seek failed (the consumer was changing its assignment): retried every
    /// round, their records dropped until it succeeds.
    var unsought = Set<Int32>()
    /// Outputs of no input partition (the geofence table's dead letters), for the next seal.
    var sharedOutput = OutputBatch(newlineSeparated: false)
    /// Counters of partitions given up, so totals survive rebalances.
    var retiredFold = FoldCounters()
    var retiredProcessor = ProcessorCounters()
    var retiredForcedMerges = 0
    var retiredCorruptSegments = 0
    /// Outputs over the producer's size limit, published as dead letters instead.
    var oversizedOutputs = 0
    /// The owned-partition count last given to `metrics`.
    var reportedOwnedPartitions = 0
    var lastSeal = 0.0
    /// Whether the last round took everything fetched and the poll before it came back short:
    /// no backlog, so a transaction may be sealed early (see `sealIfDue`).
    var caughtUp = false
    /// Partitions whose outputs were sent early into the open transaction (see `sendOutputsEarly`).
    var sentEarly = Set<Int32>()
    var lastSnapshot = 0.0
    var lastLagCheck = 0.0
    var consumed: [String: Int] = [:]

    /// - Parameters:
    ///   - shouldStop: polled between batches; true starts a graceful shutdown.
    ///   - broker: Kafka through librdkafka, or an in-memory broker in tests.
    public init(options: RuntimeOptions, metrics: RuntimeMetrics, log: @escaping @Sendable (String) -> Void,
                shouldStop: @escaping @Sendable () -> Bool, broker: any Broker = KafkaBroker(),
                clock: any Clock = SystemClock())
    {
        self.options = options
        self.metrics = metrics
        self.log = log
        self.stopRequested = shouldStop
        self.broker = broker
        self.clock = clock
    }

    /// Runs until `shouldStop` says so, then commits, leaves the group and returns.
    public func run() throws {
        try start()
        defer { shutdown() }
        while !stopRequested() {
            try step()
        }
        // Fold what was fetched, so a graceful stop leaves nothing for the next owner to redo.
        let now = clock.now()
        let monotonic = clock.monotonic()
        for partition in owners.keys.sorted() {
            owners[partition]!.foldReady(geofences: geofenceFeed.table, now: now, monotonic: monotonic, drain: true,
                                         source: options.topics)
        }
        try commitEverything()
        writeSnapshots()
    }

    // MARK: - Start

    func start() throws {
        let started = clock.monotonic()
        lastSeal = started
        lastSnapshot = started
        lastLagCheck = started
        options.kafka = options.kafka.withoutNagleByDefault()
        try ensureTopics()
        geofenceFeed = try GeofenceFeed(reader: broker.reader(configuration: geofenceReaderConfiguration),
                                        topic: options.topics.geofences, clock: clock, log: log)
        try geofenceFeed.loadAll(timeout: 60, into: &sharedOutput)
        let rejected = sharedOutput.deadLetters.count
        log("geofences loaded: \(geofenceFeed.table.count)"
            + (rejected > 0 ? ", \(rejected) records rejected (to the dead-letter topic with the first commit)" : ""))

        committer = try TransactionCommitter(
            broker: broker, configuration: options.transactionalProducerConfiguration,
            transactionalId: options.transactionalId, topics: options.topics, clock: clock, log: log)
        foldThreads = ForkJoinThreads(count: max(1, options.threads))
        let clock = self.clock
        snapshotWriter = SnapshotWriter(monotonic: { clock.monotonic() })

        // Fetching eagerly, memory is bounded by bytes; the partitions whose inputs pile up are paused
        // (`RuntimeOptions.maxPendingInputs`). A static member (docs/running.md).
        let consumerConfiguration = options.kafka.fetchingEagerly()
            .failingOverQuickly(clientId: "tripstream-\(options.instanceId)").inGroup(options.group)
        consumer = try broker.inputLog(configuration: consumerConfiguration.staticMember(instanceId: options.instanceId))
        try consumer.subscribe([options.topics.locations])

        let readerConfiguration = consumerConfiguration.inGroup(options.group + "-commands-reader")
        commandsReader = try broker.reader(configuration: readerConfiguration)
        // A reader that fetches nothing, so its answers never queue behind a fetch the broker holds.
        endProbe = try broker.reader(configuration: readerConfiguration)
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
            $0.foldThreads = options.threads
        }
        log("running: group \(options.group), transactional id \(options.transactionalId), \(options.threads) fold threads")
    }

    private var geofenceReaderConfiguration: KafkaConfiguration {
        options.kafka.inGroup("tripstream-geofence-reader")
    }

    /// Creates missing topics where the broker allows, and checks that the co-partitioned topics
    /// agree on their partition counts.
    func ensureTopics() throws {
        let topics = options.topics
        let admin = try broker.admin(configuration: options.kafka)
        var existing = (try? admin.partitionCounts(topics.all, timeout: .seconds(10))) ?? [:]
        let inputPartitions = Int32(existing[topics.locations] ?? existing[topics.tripCommands] ?? Int(options.partitions))
        let missing = topics.all.filter { existing[$0] == nil }
        if !missing.isEmpty {
            let specs = missing.map { name in
                TopicSpec(name: name, partitions: name == topics.geofences ? 3 : inputPartitions, replicationFactor: -1,
                          config: topics.compacted.contains(name) ? TopicConfiguration.compacted : [:])
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
            throw RuntimeError.partitionCountsDiffer(described)
        }
    }

    // MARK: - The loop

    func step() throws {
        pollRound += 1
        soughtSincePoll.removeAll()
        let records = try consumer.poll(maxRecords: options.maxPollRecords, timeout: .milliseconds(20))
        try handleRebalance()
        retrySeeks()
        for record in records {
            // Fetched before the seek (which fetches them again), or from where the seek has yet to move.
            guard !soughtSincePoll.contains(record.partition), !unsought.contains(record.partition) else { continue }
            owners[record.partition]?.take(fix: record, round: pollRound)
        }
        if !owners.isEmpty {
            for record in try commandsReader.poll(maxRecords: options.maxPollRecords, timeout: .zero) {
                owners[record.partition]?.take(command: record, round: pollRound)
            }
            confirmEnds()
        }
        let geofencesChanged = try geofenceFeed.poll(into: &sharedOutput)
        if geofencesChanged { metrics.update { $0.geofences = geofenceFeed.table.count } }

        try applyOutcome(waiting: false)
        let started = clock.monotonic()
        foldRound()
        if !records.isEmpty {
            let seconds = clock.monotonic() - started
            metrics.update { $0.foldBatchSeconds.observe(seconds) }
        }
        caughtUp = records.count < options.maxPollRecords && !owners.values.contains { $0.pendingCount > 0 }
        try applyBackpressure()
        try sealIfDue()
        sendOutputsEarly()
        rotateSnapshots()
        if clock.monotonic() - lastLagCheck > 5 { updateLag() }
    }

    /// Folds what is ready in every owned partition, spread over the fold threads.
    func foldRound() {
        let ordered = owners.keys.sorted().map { owners[$0]! }
        let geofences = geofenceFeed.table
        let topics = options.topics
        let idle = options.idleAdvance
        let now = clock.now()
        let monotonic = clock.monotonic()
        foldThreads.run(items: ordered.count) { index in
            let owner = ordered[index]
            owner.foldReady(geofences: geofences, now: now, monotonic: monotonic, source: topics)
            if idle > 0 { owner.advanceIfIdle(now: now, idle: idle, geofences: geofences) }
        }
        reportRotatedSnapshots()
    }

    /// Pauses fetching for partitions whose merge holds `maxPendingInputs` inputs (a silent other
    /// stream, or folding held back by a slow commit) and resumes them once half was folded.
    func applyBackpressure() throws {
        let limit = options.maxPendingInputs
        var pause: [Int32] = [], resume: [Int32] = []
        for (partition, owner) in owners {
            if !owner.paused, owner.pendingCount >= limit {
                owner.paused = true
                pause.append(partition)
            } else if owner.paused, owner.pendingCount <= limit / 2 {
                owner.paused = false
                resume.append(partition)
            }
        }
        guard !pause.isEmpty || !resume.isEmpty else { return }
        if !pause.isEmpty {
            try consumer.pause(pause.map { TopicPartition(topic: options.topics.locations, partition: $0) })
            try commandsReader.pause(pause.map { TopicPartition(topic: options.topics.tripCommands, partition: $0) })
        }
        if !resume.isEmpty {
            try consumer.resume(resume.map { TopicPartition(topic: options.topics.locations, partition: $0) })
            try commandsReader.resume(resume.map { TopicPartition(topic: options.topics.tripCommands, partition: $0) })
        }
        let paused = owners.values.filter(\.paused).count
        metrics.update {
            $0.pausedPartitions = paused
            $0.partitionPauses += pause.count
        }
    }

    /// Asks the brokers where the streams that some head waits on end (one request per topic), now
    /// that this round's records are taken.
    func confirmEnds() {
        let topics = options.topics
        let waitingOnFixes = owners.keys.filter { owners[$0]!.merge.awaitsFixesEnd }
        let waitingOnCommands = owners.keys.filter { owners[$0]!.merge.awaitsCommandsEnd }
        guard !waitingOnFixes.isEmpty || !waitingOnCommands.isEmpty else { return }
        let fixEnds = streamEnds(topics.locations, waitingOnFixes) { try consumer.positions($0) }
        let commandEnds = streamEnds(topics.tripCommands, waitingOnCommands) { try commandsReader.positions($0) }
        for partition in Set(waitingOnFixes + waitingOnCommands) {
            owners[partition]!.merge.confirmEnds(fixes: fixEnds[partition], commands: commandEnds[partition],
                                                 round: pollRound)
        }
    }

    private func streamEnds(_ topic: String, _ partitions: [Int32],
                            positions: ([TopicPartition]) throws -> [TopicPartition: Int64])
        -> [Int32: StreamMerge.StreamEnd]
    {
        guard !partitions.isEmpty else { return [:] }
        let asked = partitions.map { TopicPartition(topic: topic, partition: $0) }
        // On failure the heads keep waiting (past `mergeWait` they are folded anyway); a short timeout
        // keeps an unreachable leader from stalling the other partitions.
        guard let ends = try? endProbe.endOffsets(asked, timeout: .milliseconds(200)) else { return [:] }
        let known = (try? positions(asked)) ?? [:]
        var result: [Int32: StreamMerge.StreamEnd] = [:]
        for (partition, end) in ends { result[partition.partition] = .init(end: end, position: known[partition]) }
        return result
    }

    func updateLag() {
        lastLagCheck = clock.monotonic()
        for partition in owners.keys.sorted() where owners[partition]!.merge.waiting(now: lastLagCheck) > 10 {
            if let why = owners[partition]!.merge.waitDescription(now: lastLagCheck) {
                log("warning: partition \(partition) folds nothing: \(why)")
            }
        }
        // One request for every owned partition: the driver must not stall a round trip per partition.
        let asked = owners.keys.map { TopicPartition(topic: options.topics.locations, partition: $0) }
        guard !asked.isEmpty, let ends = try? endProbe.endOffsets(asked, timeout: .milliseconds(500)) else { return }
        var lag: [Int32: Int64] = [:]
        for (partition, end) in ends {
            if let owner = owners[partition.partition] { lag[partition.partition] = max(0, end - owner.locationsOffset) }
        }
        metrics.update { $0.lag = lag }
    }

    // MARK: - Shutdown

    func shutdown() {
        metrics.update { $0.ready = false }
        _ = committer?.awaitOutcome()  // a transaction in flight ends (committed or aborted) first
        try? consumer?.close()  // leaves the group; the revocation it triggers needs no commit now
        _ = consumer?.takeRebalanceEvents()
        for owner in owners.values { owner.history.close() }
        owners.removeAll()
        try? commandsReader?.close()
        try? endProbe?.close()
        geofenceFeed?.close()
        foldThreads?.stop()
        snapshotWriter?.stop()
        committer?.stop()
        log("stopped")
    }
}
