import Codec
import Domain
import KafkaIO

/// One transaction: outputs, then the changelog records that cover them, then the input offsets.
extension StreamRuntime {
    func commitIfNeeded(force: Bool) throws {
        let now = WallClock.monotonic()
        let dirty = output.recordCount > 0 || owners.values.contains { $0.dirty }
        guard dirty else {
            lastCommit = now
            return
        }
        let due = (now - lastCommit) * 1000 >= Double(options.commitInterval) || output.recordCount > 200_000
        guard force || due else { return }
        do {
            try commitTransaction()
            metrics.update {
                $0.transactionsCommitted += 1
                $0.consecutiveAborts = 0
            }
        } catch let error as KafkaError where error.isFatal {
            throw error  // fenced by a newer instance, or an unrecoverable client error
        } catch {
            log("transaction failed, aborting and rebuilding state from the changelog: \(error)")
            do {
                try producer.abortTransaction(timeout: .seconds(30))
            } catch {
                // A producer that cannot abort cannot begin again: replace it (a new one with the same
                // transactional id fences the old and has the coordinator abort what it left open).
                log("abort failed (\(error)); replacing the transactional producer")
                try replaceProducer()
            }
            try dropUncommittedWork()
            metrics.update {
                $0.transactionsAborted += 1
                $0.consecutiveAborts += 1
            }
            try rebuildOwnedPartitions()
        }
        // The interval runs from commit start to commit start: a slow commit shortens the next wait
        // rather than adding to every fix's latency.
        lastCommit = now
        let finished = WallClock.monotonic()
        // Time blocked here is not time a partition's other stream stayed silent.
        for partition in lastProgress.keys { lastProgress[partition]! += finished - now }
        metrics.update { $0.commitSeconds.observe(finished - now) }
        publishCounters()
        if (finished - lastSnapshot) * 1000 >= Double(options.snapshotInterval) { writeSnapshots() }
    }

    private func commitTransaction() throws {
        for (partition, owner) in owners {
            // History the fold could not read fully must not be committed as if it had been.
            if let failure = owner.history.takeFailure() {
                throw ReplayError("history store of partition \(partition): \(failure)")
            }
            if let report = owner.history.takeCorruptionReport() { log("warning: partition \(partition): \(report)") }
        }
        try producer.beginTransaction()
        let topics = options.topics
        // The fold's outputs go first, so the broker takes them in while the users' states are encoded.
        try produce(output.events, to: topics.events)
        try produce(output.eta, to: topics.eta)
        try produce(output.deadLetters, to: topics.deadLetters)
        let now = WallClock.now()
        var changelog: [(partition: Int32, key: [UInt8], value: [UInt8]?)] = []
        for partition in owners.keys.sorted() where owners[partition]!.dirty {
            for timeline in owners[partition]!.processor.flushUsers(geofences: geofenceFeed.table, now: now,
                                                                     into: &output)
            {
                changelog.append((partition, Array(timeline.userId.utf8), TimelineCodec.encode(timeline.parts)))
            }
            for change in owners[partition]!.history.takeChanges() {
                changelog.append((partition, change.key, change.value))
            }
            changelog.append((partition, PartitionCheckpoint.key, owners[partition]!.checkpoint.bytes))
        }
        try produce(output.users, to: topics.users)
        try confirmDeliveries("outputs")  // durable before the state that covers them
        for record in changelog {
            try producer.produce(topic: topics.stateChangelog, partition: record.partition, key: record.key,
                                 value: record.value)
        }
        try confirmDeliveries("changelog")
        var offsets: [TopicPartitionOffset] = []
        for (partition, owner) in owners.sorted(by: { $0.key < $1.key }) where owner.hasProgress {
            offsets.append(TopicPartitionOffset(topic: topics.locations, partition: partition, offset: owner.locationsOffset))
            offsets.append(TopicPartitionOffset(topic: topics.tripCommands, partition: partition,
                                                offset: owner.commandsOffset))
        }
        if !offsets.isEmpty {
            try producer.sendOffsetsToTransaction(offsets, consumer: consumer, timeout: .seconds(30))
        }
        try producer.commitTransaction(timeout: .seconds(60))
        output.removeAll()
        // Committed: the history changes the changelog now holds may reach the local store.
        for owner in owners.values { try owner.history.commit() }
        let committedAt = WallClock.now()
        metrics.update { values in
            for owner in owners.values {
                for timestamp in owner.uncommittedTimestamps {
                    values.inputToCommitSeconds.observe(Double(committedAt - timestamp) / 1000)
                }
            }
        }
        for partition in owners.keys {
            owners[partition]!.dirty = false
            owners[partition]!.uncommittedTimestamps.removeAll(keepingCapacity: true)
        }
    }

    private func produce(_ records: RecordBuffer, to topic: String) throws {
        let limit = maximumRecordBytes
        try records.forEach { key, value in
            guard value.count + key.count <= limit else {
                // The broker would refuse it, and the transaction with it, every time it is retried:
                // publish a dead letter in its place (with its first bytes) and count it.
                let letter = DeadLetter(
                    reason: .outputTooLarge,
                    detail: "\(topic) record of \(value.count) bytes is over the \(limit)-byte limit (message.max.bytes); not published",
                    topic: topic, partition: -1, offset: -1, key: Array(key), value: Array(value),
                    receivedAt: WallClock.now()).capped()
                var encoded: [UInt8] = []
                DeadLetterEncoder.encode(letter, into: &encoded)
                try producer.produce(topic: options.topics.deadLetters, key: key.isEmpty ? nil : Array(key),
                                     value: encoded)
                oversizedOutputs += 1
                return
            }
            try producer.produce(topic: topic, key: key.isEmpty ? nil : key, value: value)
        }
    }

    /// The largest record (key and value) the producer may send: librdkafka's `message.max.bytes`
    /// (default 1,000,000) less room for the record's framing.
    var maximumRecordBytes: Int {
        (options.kafka["message.max.bytes"].flatMap { Int($0) } ?? 1_000_000) - 512
    }

    private func confirmDeliveries(_ what: String) throws {
        let report = try producer.flush(timeout: .seconds(60))
        guard report.allDelivered else {
            throw ReplayError("\(report.failed) \(what) records not delivered (\(report.firstError.map { "\($0)" } ?? "?"))")
        }
    }

    func replaceProducer() throws {
        producer = nil  // destroyed: what it still held is dropped, as an abort would
        producer = try KafkaProducer(configuration: options.kafka.settingDefault("linger.ms", "1"),
                                     transactionalId: options.transactionalId)
        try producer.initTransactions(timeout: .seconds(60))
    }

    /// Forgets what was folded since the last commit: outputs, history changes, commit timestamps.
    func dropUncommittedWork() throws {
        output.removeAll()
        for partition in owners.keys {
            owners[partition]!.history.discard()
            owners[partition]!.uncommittedTimestamps.removeAll(keepingCapacity: true)
            owners[partition]!.dirty = false
        }
    }

    /// After an aborted transaction the in-memory state is ahead of what Kafka holds: rebuild every
    /// owned partition from its snapshot and changelog and seek the inputs back.
    func rebuildOwnedPartitions() throws {
        for partition in owners.keys.sorted() {
            retire(partition)
            let owner = try restore(partition)
            owners[partition] = owner
            lastProgress[partition] = WallClock.monotonic()
            let locations = TopicPartition(topic: options.topics.locations, partition: partition)
            do {
                try rewind(owner, locations: locations)
            } catch {
                // The consumer may be giving the partition up (a lost assignment being rejoined): its
                // next assignment restores and seeks it again.
                log("warning: partition \(partition) not rewound now (\(error)); its next assignment will")
            }
        }
    }

    /// Seeks a rebuilt partition's inputs back to what its restored state covers.
    private func rewind(_ owner: PartitionOwner, locations: TopicPartition) throws {
        let partition = locations.partition
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

    /// Writes the local snapshots of owned partitions (after a commit: memory equals the changelog).
    func writeSnapshots(only partitions: Set<Int32>? = nil) {
        lastSnapshot = WallClock.monotonic()
        do {
            try ReplayJob.makeDirectory(options.stateDirectory)
            try ReplayJob.makeDirectory(snapshotDirectory)
        } catch {
            log("warning: no snapshots: \(error)")
            return
        }
        for partition in owners.keys.sorted() where partitions?.contains(partition) ?? true {
            do {
                // Users idle beyond the horizon leave memory (their state goes to the local store,
                // written before the snapshot that no longer holds them).
                let fold = owners[partition]!.processor.fold
                if fold.streamTime != .min,
                    owners[partition]!.processor.fold.evictIdleUsers(before: fold.streamTime - options.settings.replayHorizon) > 0
                {
                    try owners[partition]!.history.commit()
                }
                let owner = owners[partition]!
                try owner.history.synchronize()  // what the snapshot claims is on disk first
                let marks = try consumer.watermarks(topic: options.topics.stateChangelog, partition: partition,
                                                    timeout: .seconds(5))
                let snapshot = PartitionSnapshot(
                    partition: partition, changelogOffset: marks.high, checkpoint: owner.checkpoint,
                    timelines: owner.processor.fold.allTimelines().map(\.parts))
                try snapshot.write(directory: snapshotDirectory)
            } catch {
                log("warning: snapshot of partition \(partition) not written: \(error)")
            }
        }
    }

    func publishCounters() {
        var fold = retiredFold
        var processor = retiredProcessor
        var users = 0
        var forcedMerges = retiredForcedMerges
        var corrupt = retiredCorruptSegments
        var consumed = self.consumed
        for owner in owners.values {
            forcedMerges += owner.forcedMerges
            corrupt += owner.history.corruptSegments
            consumed[options.topics.locations, default: 0] += owner.foldedFixes
            consumed[options.topics.tripCommands, default: 0] += owner.foldedCommands
            fold.add(owner.processor.fold.counters)
            processor.add(owner.processor.counters)
            users += owner.processor.fold.userCount
        }
        processor.add(geofenceFeed.processor.counters)
        metrics.update {
            $0.fold = fold
            $0.processor = processor
            $0.trackedUsers = users
            $0.consumed = consumed
            $0.forcedMerges = forcedMerges
            $0.corruptHistorySegments = corrupt
            if oversizedOutputs > 0 { $0.processor.deadLetters[.outputTooLarge, default: 0] += oversizedOutputs }
        }
    }
}
