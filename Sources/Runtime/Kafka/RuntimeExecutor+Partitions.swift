import Domain
import KafkaIO

/// The executor's work on partitions' state and positions: restores, seeks, the stream ends a merge
/// waits on, snapshots written at hand-over and shutdown, and the topics checked at start.
extension RuntimeExecutor {
    var snapshotDirectory: String { options.stateDirectory + "/" + options.group }

    /// The RocksDB directory of a partition's history segments.
    func historyDirectory(_ partition: Int32) -> String { snapshotDirectory + "/partition-\(partition).history" }

    /// Restores partitions side by side on the fold threads (each reads its own changelog partition
    /// and RocksDB): a rebalance that hands over many partitions waits for the slowest, not the sum.
    /// `committed`: the group's committed offsets of the partitions (fixes and commands), where there are some.
    /// - Returns: the partitions restored, and those whose changelog cannot be read as far as the group's
    ///   committed offsets yet (to be tried again).
    func restore(_ partitions: [Int32], committed: [TopicPartition: Int64]) throws
        -> (restored: [PartitionOwner], unreadable: [Int32])
    {
        let executor = RoundLoan(value: self)
        let results = RoundResults<Result<PartitionOwner?, any Error>>(count: partitions.count)
        let topics = options.topics
        workers.foldThreads.run(items: partitions.count) { index in
            let partition = partitions[index]
            let offsets = (committed[TopicPartition(topic: topics.locations, partition: partition)],
                           committed[TopicPartition(topic: topics.tripCommands, partition: partition)])
            results.store(Result { try executor.value.restore(partition, committed: offsets) }, at: index)
        }
        var restored: [PartitionOwner] = [], unreadable: [Int32] = []
        var failure: (any Error)?
        for (partition, result) in zip(partitions, results.take()) {
            switch result {
            case let .success(owner?): restored.append(owner)
            case .success(nil): unreadable.append(partition)
            case let .failure(error): failure = failure ?? error
            }
        }
        if let failure {
            for owner in restored { owner.history.close() }
            throw failure
        }
        return (restored, unreadable)
    }

    /// Rebuilds a partition's state: the local snapshot, then the changelog after it (the changelog alone when
    /// the snapshot turns out to hold less than it claims). Runs on a fold thread: it reads the runtime's
    /// settings and geofence table, and changes nothing of it.
    /// - Returns: nil when the changelog cannot be read as far as the group's committed offsets yet.
    func restore(_ partition: Int32, committed: (locations: Int64?, commands: Int64?), usingSnapshot: Bool = true)
        throws -> PartitionOwner?
    {
        metrics.update { $0.restoresInProgress += 1 }
        defer { metrics.update { $0.restoresInProgress -= 1 } }
        let started = clock.monotonic()
        var snapshot: PartitionSnapshot?
        do {
            if usingSnapshot { snapshot = try PartitionSnapshot.read(directory: snapshotDirectory, partition: partition) }
        } catch {
            log("warning: snapshot of partition \(partition) unreadable, restoring from the changelog: \(error)")
            metrics.update { $0.corruptSnapshots += 1 }
        }
        // The local history matches the changelog up to the snapshot (synchronized before it was
        // written) and replaying the changelog after it brings it up to date; without a snapshot its
        // contents are of unknown age, so it starts empty and the changelog rebuilds it.
        try ReplayJob.makeDirectory(options.stateDirectory)
        try ReplayJob.makeDirectory(snapshotDirectory)
        let history = try RocksHistoryStore(directory: historyDirectory(partition), fresh: snapshot == nil,
                                            recordsChanges: true)
        var closeHistory = true
        defer { if closeHistory { history.close() } }  // a failed restore lets go of the store (RocksDB locks it)
        var restore = PartitionRestore(snapshot: snapshot, history: history)

        let readerConfiguration = options.kafka.inGroup(options.group + "-restore")
        let reader = try broker.reader(configuration: readerConfiguration)
        defer { try? reader.close() }
        let changelog = TopicPartition(topic: options.topics.stateChangelog, partition: partition)
        let marks = try reader.watermarks(topic: changelog.topic, partition: partition, timeout: .seconds(10))
        var start = snapshot?.changelogOffset ?? marks.low
        if start < marks.low {
            log("warning: changelog of partition \(partition) starts at \(marks.low), after the snapshot (\(start))")
            start = marks.low
        }
        if start < marks.high {
            try reader.assign([(changelog, .offset(start))])
            var position = start
            var bytes = 0
            defer { let read = bytes; metrics.update { $0.restoredBytes += read } }
            let deadline = clock.monotonic() + 300
            while position < marks.high, clock.monotonic() < deadline {
                for record in try reader.poll(maxRecords: 10_000, timeout: .milliseconds(200)) {
                    bytes += (record.key?.count ?? 0) + (record.value?.count ?? 0)
                    restore.apply(key: record.key, value: record.value)
                }
                position = try reader.positions([changelog])[changelog] ?? position
            }
            guard position >= marks.high else {
                throw RuntimeError.changelogStuck(partition: partition, position: position, end: marks.high)
            }
        }
        if restore.snapshotIsStale(committed: committed) {
            log("warning: snapshot of partition \(partition) holds less than the changelog and the group's offsets "
                + "(written by an instance that had lost the partition?): restoring from the changelog alone")
            metrics.update { $0.corruptSnapshots += 1 }
            history.close()
            closeHistory = false
            return try self.restore(partition, committed: committed, usingSnapshot: false)
        }
        // Committed further than its changelog can be read: an open transaction holds its end back. Restored
        // now, the partition would fold again what is committed already.
        guard !restore.isBehind(committed: committed) else { return nil }
        let owner = PartitionOwner(partition: partition, settings: options.settings, checkpoint: restore.checkpoint,
                                   history: history, mergeWait: Double(options.mergeWait) / 1000, now: clock.now(),
                                   monotonic: clock.monotonic())
        owner.capturesImages = options.capturesCommittedState
        try owner.install(restore, geofences: clients.geofences.table)
        closeHistory = false
        if let corruption = restore.firstCorruption {
            log("warning: partition \(partition): \(restore.corruptRecords) unreadable changelog records skipped; first: \(corruption)")
        }
        let restored = restore.records
        let corrupt = restore.corruptRecords
        let seconds = clock.monotonic() - started
        metrics.update {
            $0.restoredRecords += restored
            $0.corruptChangelogRecords += corrupt
            $0.restoreSeconds += seconds
            $0.partitionRestoreSeconds.observe(seconds)
        }
        log("restored partition \(partition): \(restore.users) users, \(restore.records) changelog records (\(restore.segments) history segments) in \(String(Int(seconds * 1000))) ms"
            + (snapshot != nil ? " (from a snapshot)" : ""))
        return owner
    }

    /// Seeks a rebuilt partition's inputs back to what its restored state covers.
    func rewind(_ owner: PartitionOwner) throws {
        let partition = owner.partition
        let locations = TopicPartition(topic: options.topics.locations, partition: partition)
        let consumer = clients.consumer, commandsReader = clients.commandsReader
        let commands = options.topics.tripCommands
        if owner.hasCheckpoint {
            try consumer.seek([TopicPartitionOffset(topic: locations.topic, partition: partition,
                                                    offset: owner.locationsOffset)])
            try commandsReader.seek([TopicPartitionOffset(topic: commands, partition: partition,
                                                          offset: owner.commandsOffset)])
        } else {
            // Nothing of this partition was ever committed with a checkpoint: what was folded since it
            // was taken is undone, so its inputs start again where the group's offsets (or the log) begin.
            let committed = (try? consumer.committed([locations], timeout: .seconds(5)))?[locations]
            try consumer.seek([TopicPartitionOffset(topic: locations.topic, partition: partition,
                                                    offset: committed ?? TopicPartitionOffset.beginning)])
            try commandsReader.seek([TopicPartitionOffset(topic: commands, partition: partition,
                                                          offset: TopicPartitionOffset.beginning)])
        }
    }

    /// Writes the local snapshots of owned partitions (after a commit: memory equals the changelog),
    /// on hand-over and shutdown; while running, the rotation takes one partition at a time.
    /// The changelog ends come in one request; each partition's snapshot is written on a fold thread.
    func writeSnapshots(_ chosen: [PartitionOwner]) {
        do {
            try ReplayJob.makeDirectory(options.stateDirectory)
            try ReplayJob.makeDirectory(snapshotDirectory)
        } catch {
            log("warning: no snapshots: \(error)")
            return
        }
        workers.snapshotWriter.waitUntilIdle()  // one writer per snapshot file
        let changelog = chosen.map { TopicPartition(topic: options.topics.stateChangelog, partition: $0.partition) }
        let ends: [TopicPartition: Int64]
        do {
            ends = try clients.endProbe.endOffsets(changelog, timeout: .seconds(5))
        } catch {
            log("warning: no snapshots: the changelog's end is unknown: \(error)")
            return
        }
        let directory = snapshotDirectory
        let horizon = options.settings.replayHorizon
        let clock = self.clock
        let loan = RoundLoan(value: (chosen, changelog.map { ends[$0] }))
        let results = RoundResults<SnapshotWriter.Result>(count: chosen.count)
        workers.foldThreads.run(items: chosen.count) { index in
            let owner = loan.value.0[index]
            guard let end = loan.value.1[index] else {
                results.store(.init(partition: owner.partition, outcome: .failure(RuntimeError.changelogEndUnknown)),
                              at: index)
                return
            }
            results.store(owner.writeSnapshot(changelogEnd: end, directory: directory, horizon: horizon,
                                              monotonic: { clock.monotonic() }),
                          at: index)
        }
        for result in results.take() {
            switch result.outcome {
            case let .success(seconds): metrics.update { $0.snapshotSeconds.observe(seconds) }
            case let .failure(reason): log("warning: snapshot of partition \(result.partition) not written: \(reason)")
            }
        }
    }

    /// Asks the brokers where the streams that some head waits on end (one request per topic).
    func confirmEnds(fixes: [Int32], commands: [Int32]) -> RuntimeActionResult {
        let topics = options.topics
        let fixEnds = streamEnds(topics.locations, fixes) { try clients.consumer.positions($0) }
        let commandEnds = streamEnds(topics.tripCommands, commands) { try clients.commandsReader.positions($0) }
        return .streamEnds(fixes: fixEnds, commands: commandEnds)
    }

    private func streamEnds(_ topic: String, _ partitions: [Int32],
                            positions: ([TopicPartition]) throws -> [TopicPartition: Int64])
        -> [Int32: StreamMerge.StreamEnd]
    {
        guard !partitions.isEmpty else { return [:] }
        let asked = partitions.map { TopicPartition(topic: topic, partition: $0) }
        // On failure the heads keep waiting (past `mergeWait` they are folded anyway); a short timeout
        // keeps an unreachable leader from stalling the other partitions.
        guard let ends = try? clients.endProbe.endOffsets(asked, timeout: .milliseconds(200)) else { return [:] }
        let known = (try? positions(asked)) ?? [:]
        var result: [Int32: StreamMerge.StreamEnd] = [:]
        for (partition, end) in ends { result[partition.partition] = .init(end: end, position: known[partition]) }
        return result
    }

    /// Creates missing topics where the broker allows, and checks that the co-partitioned topics
    /// agree on their partition counts.
    static func ensureTopics(options: RuntimeOptions, broker: any Broker, log: (String) -> Void) throws {
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
}

extension FoldCounters {
    mutating func add(_ other: FoldCounters) {
        fixes += other.fixes
        commands += other.commands
        duplicates += other.duplicates
        rewinds += other.rewinds
        lateInputs += other.lateInputs
        refoldedInputs += other.refoldedInputs
        usersEvicted += other.usersEvicted
        usersReturned += other.usersReturned
        filteredJumps += other.filteredJumps
        tooInaccurate += other.tooInaccurate
        unmatchedCommands += other.unmatchedCommands
        for (reason, count) in other.rejected { rejected[reason, default: 0] += count }
        for index in eventsByType.indices { eventsByType[index] += other.eventsByType[index] }
        corrected += other.corrected
        retracted += other.retracted
    }
}

extension ProcessorCounters {
    mutating func add(_ other: ProcessorCounters) {
        recordsIn += other.recordsIn
        geofenceUpserts += other.geofenceUpserts
        geofenceDeletes += other.geofenceDeletes
        for (reason, count) in other.deadLetters { deadLetters[reason, default: 0] += count }
        unknownDestinations += other.unknownDestinations
        unknownDestinationExample = unknownDestinationExample ?? other.unknownDestinationExample
    }
}
