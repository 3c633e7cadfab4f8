import Domain
import KafkaIO

/// Partition ownership: restore on assignment before any input of the partition is folded,
/// hand over on revocation after committing what was folded.
extension StreamRuntime {
    /// Applies the rebalance events of the last poll.
    /// Partitions sought here are added to `soughtSincePoll`.
    func handleRebalance() throws {
        for event in consumer.takeRebalanceEvents() {
            switch event {
            case let .revoked(partitions):
                let mine = partitions.filter { $0.topic == options.topics.locations }.map(\.partition)
                guard !mine.isEmpty else { continue }
                // Hand over cleanly: what was folded is committed before another instance resumes.
                try commitEverything()
                writeSnapshots(only: Set(mine))
                for partition in mine { retire(partition) }
                try commandsReader.remove(mine.map { TopicPartition(topic: options.topics.tripCommands, partition: $0) })
                log("gave up partitions \(mine.sorted())")
            case let .lost(partitions):
                let mine = partitions.filter { $0.topic == options.topics.locations }.map(\.partition)
                guard !mine.isEmpty else { continue }
                // Another member may own them already: nothing folded since the last commit may be
                // committed now. A transaction in flight ends first (on Kafka, its offsets carry the old
                // generation and it is refused). The uncommitted work is dropped, and the partitions
                // still owned are rebuilt from what was committed.
                try applyOutcome(waiting: true)
                try discardOpenTransaction()
                for partition in mine { retire(partition) }
                try commandsReader.remove(mine.map { TopicPartition(topic: options.topics.tripCommands, partition: $0) })
                try rebuildOwnedPartitions()
                metrics.update {
                    $0.partitionsLost += mine.count
                    $0.groupLost = true
                }
                log("lost partitions \(mine.sorted()) (session expired or fenced): dropped without committing")
            case let .assigned(partitions):
                let mine = partitions.filter { $0.topic == options.topics.locations }.map(\.partition).sorted()
                guard !mine.isEmpty else { continue }
                let reassigned = mine.filter { owners[$0] != nil }  // assigned again without a hand-over
                if !reassigned.isEmpty {
                    try applyOutcome(waiting: true)
                    // Their uncommitted work is dropped: so must be what they sent early, and the
                    // others' early outputs go with it (one transaction), their work folded again.
                    let rebuildOthers = !sentEarly.isEmpty
                    if rebuildOthers { try discardOpenTransaction() }
                    for partition in reassigned { retire(partition) }
                    if rebuildOthers { try rebuildOwnedPartitions() }
                }
                for (partition, owner) in try restore(mine) {
                    owners[partition] = owner
                    try commandsReader.add([(TopicPartition(topic: options.topics.tripCommands, partition: partition),
                                             owner.hasCheckpoint ? .offset(owner.commandsOffset) : .beginning)])
                    if owner.hasCheckpoint { seek(owner) }
                }
                metrics.update { $0.groupLost = false }
                let resumed = mine.map { owners[$0]!.hasCheckpoint ? "\($0) at \(owners[$0]!.locationsOffset)/\(owners[$0]!.commandsOffset)" : "\($0)" }
                log("took partitions \(mine) (resuming fixes/commands: \(resumed.joined(separator: ", ")))")
            case let .failed(error):
                log("warning: rebalance failed: \(error)")
            }
        }
        // Compared with what was last reported: a metrics snapshot copies every counter, and this runs every poll.
        if owners.count != reportedOwnedPartitions {
            reportedOwnedPartitions = owners.count
            metrics.update { $0.ownedPartitions = owners.count }
        }
    }

    func retire(_ partition: Int32) {
        guard let owner = owners.removeValue(forKey: partition) else { return }
        consumed[options.topics.locations, default: 0] += owner.foldedFixes
        consumed[options.topics.tripCommands, default: 0] += owner.foldedCommands
        retiredFold.add(owner.processor.fold.counters)
        retiredProcessor.add(owner.processor.counters)
        retiredForcedMerges += owner.merge.forcedMerges
        retiredCorruptSegments += owner.history.corruptSegments
        unsought.remove(partition)
        if owner.paused {
            // A partition taken again starts unpaused.
            try? consumer.resume([TopicPartition(topic: options.topics.locations, partition: partition)])
            try? commandsReader.resume([TopicPartition(topic: options.topics.tripCommands, partition: partition)])
        }
        owner.history.close()
    }

    var snapshotDirectory: String { options.stateDirectory + "/" + options.group }

    /// The RocksDB directory of a partition's history segments.
    func historyDirectory(_ partition: Int32) -> String { snapshotDirectory + "/partition-\(partition).history" }

    /// Restores partitions side by side on the fold threads (each reads its own changelog partition
    /// and RocksDB): a rebalance that hands over many partitions waits for the slowest, not the sum.
    func restore(_ partitions: [Int32]) throws -> [(Int32, PartitionOwner)] {
        let runtime = RoundLoan(value: self)
        let results = RoundResults<Result<PartitionOwner, any Error>>(count: partitions.count)
        foldThreads.run(items: partitions.count) { index in
            results.store(Result { try runtime.value.restore(partitions[index]) }, at: index)
        }
        var restored: [(Int32, PartitionOwner)] = []
        var failure: (any Error)?
        for (partition, result) in zip(partitions, results.take()) {
            switch result {
            case let .success(owner): restored.append((partition, owner))
            case let .failure(error): failure = failure ?? error
            }
        }
        if let failure {
            for (_, owner) in restored { owner.history.close() }
            throw failure
        }
        return restored
    }

    /// Rebuilds a partition's state: the local snapshot, then the changelog after it. Runs on a fold
    /// thread: it reads the runtime's settings and geofence table, and changes nothing of it.
    func restore(_ partition: Int32) throws -> PartitionOwner {
        metrics.update { $0.restoresInProgress += 1 }
        defer { metrics.update { $0.restoresInProgress -= 1 } }
        let started = clock.monotonic()
        var snapshot: PartitionSnapshot?
        do {
            snapshot = try PartitionSnapshot.read(directory: snapshotDirectory, partition: partition)
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
        let owner = PartitionOwner(partition: partition, settings: options.settings, checkpoint: restore.checkpoint,
                                   history: history, mergeWait: Double(options.mergeWait) / 1000, now: clock.now(),
                                   monotonic: clock.monotonic())
        try restore.install(into: &owner.processor.fold, geofences: geofenceFeed.table)
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
