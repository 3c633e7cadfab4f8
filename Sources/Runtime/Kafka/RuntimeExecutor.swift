import Codec
import Domain
import KafkaIO

/// Carries out a ``RuntimeStateMachine``'s actions over the broker's clients: the thin part of the
/// service that does I/O. Threaded (`run`), it folds on `options.threads` threads, commits on a thread
/// of its own and writes snapshots on another, and an action that waits for the producer blocks.
/// Stepped (the simulation), everything happens on the caller's thread: the producer makes a call only
/// when told (`runProducerCall`), and an action that would wait for it returns `.blocked` instead.
package final class RuntimeExecutor {
    package enum Mode: Sendable {
        case threaded
        case stepped
    }

    package enum StepOutcome: Equatable, Sendable {
        case progressed
        /// Waiting for the producer (stepped only): the same action is tried again at the next step.
        case blocked
        /// The machine stopped cleanly; `shutdown` remains.
        case finished
    }

    package let options: RuntimeOptions
    let metrics: RuntimeMetrics
    let log: @Sendable (String) -> Void
    let clock: any Clock
    let broker: any Broker
    let clients: RuntimeClients
    let workers: RuntimeWorkers
    private(set) var machine: RuntimeStateMachine
    /// The action that waits for the producer (stepped), and whether its request was made.
    private var blocked: (action: RuntimeAction, requested: Bool)?
    private let mode: Mode
    private let probes: RuntimeProbes

    /// Starts the service's clients: topics checked (created where missing), the geofence table loaded,
    /// the producer's transactions initialized, the consumer subscribed.
    package init(options: RuntimeOptions, metrics: RuntimeMetrics, log: @escaping @Sendable (String) -> Void,
                 broker: any Broker, clock: any Clock, mode: Mode, probes: RuntimeProbes = RuntimeProbes()) throws
    {
        let started = RuntimeInstant(clock)
        var options = options
        options.kafka = options.kafka.withoutNagleByDefault()
        if mode == .stepped { options.threads = 1 }
        self.options = options
        self.metrics = metrics
        self.log = log
        self.clock = clock
        self.broker = broker
        self.mode = mode
        self.probes = probes
        try Self.ensureTopics(options: options, broker: broker, log: log)
        var shared = OutputBatch(newlineSeparated: false)
        let geofences = try GeofenceFeed.loaded(options: options, broker: broker, clock: clock, log: log, into: &shared)
        workers = try RuntimeWorkers(options: options, broker: broker, clock: clock, log: log, threaded: mode == .threaded)
        clients = try RuntimeClients(options: options, broker: broker, geofences: geofences)
        if let committed = probes.committed {
            workers.committer.onCommitted = { receipt in
                committed(receipt.parts.map {
                    PartitionState(partition: $0.partition, checkpoint: $0.checkpoint, users: PartitionState.users(of: $0.image),
                                   inputs: $0.inputs)
                })
            }
        }
        machine = RuntimeStateMachine(options: options, shared: shared, at: started)
        let geofenceCount = geofences.table.count
        metrics.update {
            $0.ready = true
            $0.geofences = geofenceCount
            $0.foldThreads = options.threads
        }
        log("running: group \(options.group), transactional id \(options.transactionalId), \(options.threads) fold threads")
    }

    // MARK: - Steps

    /// Carries out the machine's next action (after asking it to stop, if `stop`).
    package func step(stop: Bool = false) throws -> StepOutcome {
        if stop { machine.requestStop() }
        let action: RuntimeAction
        let requested: Bool
        if let waiting = blocked {
            (action, requested) = waiting
        } else {
            action = machine.nextAction(at: RuntimeInstant(clock))
            requested = false
        }
        report()
        if case .finished = action { return .finished }
        guard let result = try perform(action, requested: requested) else { return .blocked }
        blocked = nil
        machine.receive(result, at: RuntimeInstant(clock))
        report()
        return .progressed
    }

    /// What waits: the most inputs fetched and not folded in one partition, and the producer's jobs.
    package var backlog: (pendingInputs: Int, producerJobs: Int) {
        (machine.assignment.owners.values.map(\.pendingCount).max() ?? 0, workers.committer.queuedJobs)
    }

    /// The producer's next call in the job under way, by name: where a crash now strikes.
    package var producerCallUnderWay: String? { workers.committer.callUnderWay }

    /// Whether the producer has a call to make (stepped).
    package var producerHasWork: Bool { workers.committer.hasWork }

    /// Makes the producer's next call (stepped). - Returns: false when it had nothing to do.
    @discardableResult
    package func runProducerCall() -> Bool { workers.committer.runNextCall() }

    /// The machine's log lines and metric updates, passed on.
    private func report() {
        for report in machine.takeReports() {
            switch report {
            case let .log(line): log(line)
            case let .metrics(update): metrics.update(update)
            case var .counters(counters):
                counters.processor.add(clients.geofences.processor.counters)
                metrics.update {
                    $0.fold = counters.fold
                    $0.processor = counters.processor
                    $0.trackedUsers = counters.users
                    $0.consumed = counters.consumed
                    $0.forcedMerges = counters.forcedMerges
                    $0.corruptHistorySegments = counters.corruptSegments
                    if counters.oversizedOutputs > 0 {
                        $0.processor.deadLetters[.outputTooLarge, default: 0] += counters.oversizedOutputs
                    }
                }
            }
        }
    }

    // MARK: - Actions

    /// - Returns: the action's result, nil when it waits for the producer (stepped).
    private func perform(_ action: RuntimeAction, requested: Bool) throws -> RuntimeActionResult? {
        let topics = options.topics
        let consumer = clients.consumer, commands = clients.commandsReader
        func fixes(_ partitions: [Int32]) -> [TopicPartition] {
            partitions.map { TopicPartition(topic: topics.locations, partition: $0) }
        }
        func tripCommands(_ partitions: [Int32]) -> [TopicPartition] {
            partitions.map { TopicPartition(topic: topics.tripCommands, partition: $0) }
        }
        switch action {
        case .poll:
            let records = try consumer.poll(maxRecords: options.maxPollRecords, timeout: .milliseconds(20))
            return .polled(records, consumer.takeRebalanceEvents())
        case .pollCommands:
            return .commandsPolled(try commands.poll(maxRecords: options.maxPollRecords, timeout: .zero))
        case let .confirmEnds(fixes, commands): return confirmEnds(fixes: fixes, commands: commands)
        case .pollGeofences:
            var deadLetters = OutputBatch(newlineSeparated: false)
            let changed = try clients.geofences.poll(into: &deadLetters)
            return .geofencesPolled(changed: changed, geofences: clients.geofences.table.count, deadLetters: deadLetters)
        case let .seek(owner):
            do {
                try rewind(owner)
                return .sought(owner.partition, nil)
            } catch {
                return .sought(owner.partition, error)
            }
        case let .pause(partitions):
            try consumer.pause(fixes(partitions))
            try commands.pause(tripCommands(partitions))
        case let .resume(partitions):
            try consumer.resume(fixes(partitions))
            try commands.resume(tripCommands(partitions))
        case let .addCommands(partition, start):
            try commands.add([(TopicPartition(topic: topics.tripCommands, partition: partition), start)])
        case let .removeCommands(partitions): try commands.remove(tripCommands(partitions))
        case let .release(partitions): try consumer.release(fixes(partitions))
        case let .checkStable(partitions):
            // One at a time: the answer says nothing of which partition has offsets pending.
            var ready: [Int32] = [], pending: [Int32] = []
            var committed: [TopicPartition: Int64] = [:]
            for partition in partitions {
                do {
                    let asked = fixes([partition]) + tripCommands([partition])
                    let timeout: Duration = mode == .threaded ? .milliseconds(500) : .zero
                    committed.merge(try consumer.committed(asked, timeout: timeout)) { $1 }
                    ready.append(partition)
                } catch {
                    pending.append(partition)
                }
            }
            return .stable(ready: ready, pending: pending, committed: committed)
        case let .measureLag(partitions):
            return .lag(try? clients.endProbe.endOffsets(fixes(partitions), timeout: .milliseconds(500)))
        case let .restore(partitions, committed):
            let (owners, unreadable) = try restore(partitions, committed: committed)
            probes.restored?(owners.map {
                PartitionState(partition: $0.partition, checkpoint: $0.sealedCheckpoint, users: PartitionState.users(of: $0.engine.image),
                               inputs: 0)
            })
            return .restored(owners, unreadable: unreadable)
        case let .retire(owners): retire(owners)
        case let .fold(owners, drain): return fold(owners, drain: drain)
        case let .dropUncommitted(owners): for owner in owners { owner.dropUncommitted() }
        case let .commitHistory(commits):
            for (owner, generation) in commits { try owner.history.commit(through: generation) }
        case let .seal(owners, dirty, shared): return .sealed(try seal(owners: owners, dirty: dirty, shared: shared))
        case .checkProducer: return .producer(acceptsEarly: workers.committer.acceptsEarly)
        case let .submit(transaction): workers.committer.submit(transaction)
        case let .sendEarly(batches): workers.committer.sendEarly(batches)
        case .discardOpenTransaction:
            if !requested { workers.committer.requestDiscard() }
            if mode == .threaded { return .discarded(workers.committer.awaitDiscarded()) }
            guard let discarded = workers.committer.takeDiscarded() else {
                blocked = (action, true)
                return nil
            }
            return .discarded(discarded)
        case .takeTransactionOutcome:
            return workers.committer.takeOutcome().map { .transactionEnded($0.receipt, $0.outcome) } ?? .noTransactionOutcome
        case .awaitTransactionOutcome:
            let ended = mode == .threaded ? workers.committer.awaitOutcome() : workers.committer.takeOutcome()
            guard let ended else {
                guard mode == .stepped, workers.committer.isBusy else { return .noTransactionOutcome }
                blocked = (action, true)
                return nil
            }
            return .transactionEnded(ended.receipt, ended.outcome)
        case .checkSnapshotWriter: return .snapshotWriter(busy: workers.snapshotWriter.isBusy)
        case let .imageClean(owners):
            for owner in owners { owner.imageWhenClean(horizon: options.settings.replayHorizon) }
        case let .changelogEnds(partitions):
            let changelog = partitions.map { TopicPartition(topic: topics.stateChangelog, partition: $0) }
            return .changelogEnds(try? clients.endProbe.endOffsets(changelog, timeout: .seconds(1)))
        case let .submitSnapshots(jobs):
            for (owner, job) in jobs {
                do {
                    // The snapshot claims the history store as of its image: the store holds at least that.
                    try owner.history.synchronize()
                } catch {
                    log("warning: snapshot of partition \(owner.partition) not written: \(error)")
                    continue
                }
                workers.snapshotWriter.submit(job)
            }
        case let .writeSnapshots(owners): writeSnapshots(owners)
        case let .fail(error): throw error
        case .finished: break
        }
        return .done
    }

    // MARK: - Folding and sealing

    /// Folds what is ready in every owned partition, spread over the fold threads; draining (a graceful
    /// stop), everything fetched, one partition after the other.
    private func fold(_ owners: [PartitionOwner], drain: Bool) -> RuntimeActionResult {
        let geofences = clients.geofences.table
        let topics = options.topics
        let now = clock.now()
        let monotonic = clock.monotonic()
        if drain {
            for owner in owners {
                owner.foldReady(geofences: geofences, now: now, monotonic: monotonic, drain: true, source: topics)
            }
            return .done
        }
        let idle = options.idleAdvance
        workers.foldThreads.run(items: owners.count) { index in
            let owner = owners[index]
            owner.foldReady(geofences: geofences, now: now, monotonic: monotonic, source: topics)
            if idle > 0 { owner.advanceIfIdle(now: now, idle: idle, geofences: geofences) }
        }
        let snapshots = workers.snapshotWriter.takeResults()
        return .folded(seconds: clock.monotonic() - monotonic, snapshots: snapshots)
    }

    /// Checks every store (history the fold could not read fully must not be committed as if it had
    /// been), then closes the dirty partitions' parts on the fold threads.
    private func seal(owners: [PartitionOwner], dirty: [PartitionOwner], shared: OutputBatch) throws -> SealedTransaction {
        for owner in owners {
            if let failure = owner.history.takeFailure() {
                throw RuntimeError.historyStore(partition: owner.partition, reason: "\(failure)")
            }
            if let report = owner.history.takeCorruptionReport() { log("warning: partition \(owner.partition): \(report)") }
        }
        let geofences = clients.geofences.table
        let now = clock.now()
        let horizon = options.settings.replayHorizon
        let batches = RoundResults<PartitionBatch>(count: dirty.count)
        workers.foldThreads.run(items: dirty.count) { index in
            batches.store(dirty[index].seal(geofences: geofences, now: now, horizon: horizon), at: index)
        }
        return SealedTransaction(partitions: batches.take(), shared: shared, membership: try clients.consumer.membership(),
                                 sealedAt: clock.monotonic())
    }

    /// Lets go of partitions given up: a partition taken again starts unpaused, and its store is closed.
    private func retire(_ owners: [PartitionOwner]) {
        for owner in owners {
            if owner.paused {
                try? clients.consumer.resume([TopicPartition(topic: options.topics.locations, partition: owner.partition)])
                try? clients.commandsReader.resume([TopicPartition(topic: options.topics.tripCommands,
                                                                   partition: owner.partition)])
            }
            owner.history.close()
        }
    }

    // MARK: - Stopping

    /// Ends a transaction in flight, leaves the group, closes every client and stops the threads.
    package func shutdown() {
        metrics.update { $0.ready = false }
        // A transaction in flight ends (committed or aborted) first.
        if mode == .stepped {
            while workers.committer.runNextCall() {}
            _ = workers.committer.takeOutcome()
        } else {
            _ = workers.committer.awaitOutcome()
        }
        try? clients.consumer.close()  // leaves the group; the revocation it triggers needs no commit now
        _ = clients.consumer.takeRebalanceEvents()
        for owner in machine.releaseOwners() { owner.history.close() }
        try? clients.commandsReader.close()
        try? clients.endProbe.close()
        clients.geofences.close()
        workers.foldThreads.stop()
        workers.snapshotWriter.stop()
        workers.committer.stop()
        log("stopped")
    }

    /// A crash (the simulation's): the process is gone. Its local stores close as a killed process leaves
    /// them; nothing is said to the broker (the group forgets the member when its session expires, the
    /// coordinator aborts its open transaction when a producer with its id starts or it times out).
    package func crash() {
        for owner in machine.releaseOwners() { owner.history.close() }
        workers.foldThreads.stop()
    }
}

/// The service's consumers: fixes (group member), trip commands and stream ends (assigned), geofences.
struct RuntimeClients {
    let consumer: any InputLog
    let commandsReader: any PartitionReader
    /// A reader that fetches nothing, so its answers never queue behind a fetch the broker holds.
    let endProbe: any PartitionReader
    let geofences: GeofenceFeed

    init(options: RuntimeOptions, broker: any Broker, geofences: GeofenceFeed) throws {
        self.geofences = geofences
        // Fetching eagerly, memory is bounded by bytes; the partitions whose inputs pile up are paused
        // (`RuntimeOptions.maxPendingInputs`). A static member (docs/running.md).
        let consumerConfiguration = options.kafka.fetchingEagerly()
            .failingOverQuickly(clientId: "tripstream-\(options.instanceId)").inGroup(options.group)
        consumer = try broker.inputLog(configuration: consumerConfiguration.staticMember(instanceId: options.instanceId))
        try consumer.subscribe([options.topics.locations])

        let readerConfiguration = consumerConfiguration.inGroup(options.group + "-commands-reader")
        commandsReader = try broker.reader(configuration: readerConfiguration)
        endProbe = try broker.reader(configuration: readerConfiguration)
        // Learn the topics' metadata now: a partition assigned to a client that has not seen its topic
        // waits for librdkafka's next 1 s topic scan before its first fetch, and the probe's first
        // question would wait for the leaders' lookup.
        _ = try? commandsReader.watermarks(topic: options.topics.tripCommands, partition: 0, timeout: .seconds(5))
        _ = try? endProbe.endOffsets([TopicPartition(topic: options.topics.locations, partition: 0),
                                      TopicPartition(topic: options.topics.tripCommands, partition: 0)],
                                     timeout: .seconds(5))
    }
}

extension GeofenceFeed {
    /// The geofence table, read whole before any fix is folded; the records it rejects go to `deadLetters`.
    static func loaded(options: RuntimeOptions, broker: any Broker, clock: any Clock,
                       log: @escaping @Sendable (String) -> Void, into deadLetters: inout OutputBatch) throws -> GeofenceFeed
    {
        let feed = try GeofenceFeed(reader: broker.reader(configuration: options.kafka.inGroup("tripstream-geofence-reader")),
                                    topic: options.topics.geofences, clock: clock, log: log)
        try feed.loadAll(timeout: 60, into: &deadLetters)
        let rejected = deadLetters.deadLetters.count
        log("geofences loaded: \(feed.table.count)"
            + (rejected > 0 ? ", \(rejected) records rejected (to the dead-letter topic with the first commit)" : ""))
        return feed
    }
}

/// The threads beside the driver: the transactional producer's, the fold threads, the snapshot writer.
struct RuntimeWorkers {
    let committer: TransactionCommitter
    let foldThreads: ForkJoinThreads
    let snapshotWriter: SnapshotWriter

    init(options: RuntimeOptions, broker: any Broker, clock: any Clock, log: @escaping @Sendable (String) -> Void,
         threaded: Bool) throws
    {
        committer = try TransactionCommitter(
            broker: broker, configuration: options.transactionalProducerConfiguration,
            transactionalId: options.transactionalId, topics: options.topics, clock: clock, log: log, threaded: threaded)
        foldThreads = ForkJoinThreads(count: max(1, options.threads))
        snapshotWriter = SnapshotWriter(monotonic: { clock.monotonic() }, threaded: threaded)
    }
}
