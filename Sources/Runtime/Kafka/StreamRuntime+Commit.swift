import Codec
import Domain
import KafkaIO

/// Transactions: sealed by the driver between fold rounds, committed by `TransactionCommitter`
/// while the fold goes on, their outcomes applied by the driver.
extension StreamRuntime {
    /// Seals the partitions folded since the last seal into a transaction and hands it to the
    /// committer, when the commit interval has passed and no transaction is in flight; or, caught
    /// up with the inputs, as soon as the committer is idle and a quarter of the interval has passed.
    ///
    /// Catching up, a transaction gathers a whole interval: its fixed costs (round trips, markers)
    /// are shared by more inputs. Caught up, nothing is gained by holding inputs while the committer
    /// waits: at 50,000 fixes/s on the dev broker, sealing early took the input-to-commit p99 from
    /// ≤ 250–300 ms to ≤ 150–200 ms (`bench --pipeline --latency-rate 50000`). A quarter, not
    /// nothing: a trickle of inputs does not become a transaction per poll.
    func sealIfDue(force: Bool = false) throws {
        let now = clock.monotonic()
        let dirty = sharedOutput.recordCount > 0 || owners.values.contains { $0.dirty }
        guard dirty else {
            lastSeal = now
            return
        }
        let held = owners.values.reduce(sharedOutput.byteCount) { $0 + $1.output.byteCount }
        let elapsed = (now - lastSeal) * 1000, interval = Double(options.commitInterval)
        let committing = committer.isBusy
        let due = elapsed >= interval || held >= options.maxTransactionBytes
            || (caughtUp && elapsed >= interval / 4 && !committing)
        guard force || due else { return }
        if committing {
            // The commit in flight is slower than folding. Below the bound the fold goes on and the
            // next transaction grows; at the bound the driver waits (its inputs pile up in the
            // merges, which pauses their partitions at the consumer).
            guard force || held >= options.maxTransactionBytes else { return }
            try applyOutcome(waiting: true)
            let waited = clock.monotonic() - now
            for owner in owners.values { owner.merge.excuse(waited) }
            // An abort rebuilt the partitions: nothing is left to seal.
            guard owners.values.contains(where: \.dirty) || sharedOutput.recordCount > 0 else { return }
        }
        try checkHistoryStores()
        let transaction = try seal()
        committer.submit(transaction)
        // The interval runs from seal to seal: a slow commit shortens the next wait rather than
        // adding to every fix's latency.
        lastSeal = now
    }

    /// Hands the outputs folded since the last seal to the committer, which sends them into the open
    /// transaction while the fold goes on, when no transaction is committing: the commit after the
    /// next seal then has only the users and the changelog left to send, most outputs acknowledged.
    /// They stay in that transaction, committed with the changelog and offsets of their inputs or
    /// aborted with them.
    func sendOutputsEarly() {
        guard options.sendOutputsEarly, committer.acceptsEarly else { return }
        var batches: [OutputBatch] = []
        var records = 0
        for partition in owners.keys.sorted() {
            let owner = owners[partition]!
            guard owner.output.recordCount > 0 else { continue }
            var batch = OutputBatch(newlineSeparated: false)
            swap(&batch, &owner.output)
            records += batch.recordCount
            batches.append(batch)
            sentEarly.insert(partition)
        }
        guard !batches.isEmpty else { return }
        committer.sendEarly(batches)
        metrics.update { $0.outputsSentEarly += records }
    }

    /// Drops the outputs sent early into the open transaction, and with them all the work not yet
    /// committed, which is then folded again from the partitions' committed state: for partitions
    /// given up without a commit, whose early outputs must not be committed without their state.
    func discardOpenTransaction() throws {
        let discarded = committer.discardOpen()
        if case let .fatal(error) = discarded { throw error }
        if case .aborted = discarded {
            log("transaction aborted: it held early outputs of work dropped without a commit")
            metrics.update { $0.transactionsAborted += 1 }
        }
        sentEarly.removeAll()
        dropUncommittedWork()
    }

    /// Commits everything folded so far and waits for it (hand-over, snapshots, shutdown).
    func commitEverything() throws {
        try applyOutcome(waiting: true)
        try sealIfDue(force: true)
        try applyOutcome(waiting: true)
    }

    /// History the fold could not read fully must not be committed as if it had been.
    private func checkHistoryStores() throws {
        for (partition, owner) in owners {
            if let failure = owner.history.takeFailure() {
                throw RuntimeError.historyStore(partition: partition, reason: "\(failure)")
            }
            if let report = owner.history.takeCorruptionReport() { log("warning: partition \(partition): \(report)") }
        }
    }

    /// Closes the dirty partitions' parts (users encoded for the changelog on the fold threads).
    private func seal() throws -> SealedTransaction {
        let dirty = owners.keys.sorted().compactMap { owners[$0]!.dirty ? owners[$0]! : nil }
        let geofences = geofenceFeed.table
        let now = clock.now()
        let horizon = options.settings.replayHorizon
        let batches = RoundResults<PartitionBatch>(count: dirty.count)
        foldThreads.run(items: dirty.count) { index in
            batches.store(dirty[index].seal(geofences: geofences, now: now, horizon: horizon), at: index)
        }
        var shared = OutputBatch(newlineSeparated: false)
        swap(&shared, &sharedOutput)
        return SealedTransaction(partitions: batches.take(), shared: shared, membership: try consumer.membership(),
                                 sealedAt: clock.monotonic())
    }

    /// Applies how the transaction in flight ended, if it did (or, `waiting`, once it does).
    func applyOutcome(waiting: Bool) throws {
        guard let (receipt, outcome) = waiting ? committer.awaitOutcome() : committer.takeOutcome() else { return }
        sentEarly.removeAll()  // committed or aborted with the transaction that ended
        switch outcome {
        case let .committed(seconds, committedAt, oversized, retries):
            // Committed: the history changes the changelog now holds may reach the local store.
            for part in receipt.parts {
                guard let owner = owners[part.partition], ObjectIdentifier(owner) == part.owner else { continue }
                try owner.history.commit(through: part.historyGeneration)
                owner.sealedUncommitted = false
                if case let .sealed(image, checkpoint) = owner.snapshotCapture {
                    owner.snapshotCapture = .committed(image: image, checkpoint: checkpoint)
                }
            }
            writeCommittedImages()
            oversizedOutputs += oversized
            metrics.update { values in
                values.transactionsCommitted += 1
                values.consecutiveAborts = 0
                values.transactionRetries += retries
                values.commitSeconds.observe(seconds)
                for part in receipt.parts {
                    values.inputsCommitted += part.inputs
                    if let offsets = part.offsets { values.committedOffsets[part.partition] = offsets }
                    for timestamp in part.inputTimestamps {
                        values.inputToCommitSeconds.observe(Double(committedAt - timestamp) / 1000)
                    }
                }
            }
        case let .aborted(reason, seconds):
            log("transaction aborted (\(reason)); rebuilding state from the changelog")
            metrics.update {
                $0.transactionsAborted += 1
                $0.consecutiveAborts += 1
                $0.commitSeconds.observe(seconds)
            }
            // What was folded since (the next transaction's inputs) grew from the aborted state too.
            dropUncommittedWork()
            var shared = receipt.shared
            shared.append(contentsOf: sharedOutput)
            sharedOutput = shared
            try rebuildOwnedPartitions()
        case let .fatal(error):
            if error.fencesThisInstance { metrics.update { $0.producerFenced = true } }
            throw error  // fenced by a newer instance, or an unrecoverable client error
        }
        publishCounters()
    }

    /// Forgets what was folded since the last commit: outputs, history changes, commit timestamps.
    /// The geofence table's dead letters stay (`sharedOutput`): their records are not read again.
    func dropUncommittedWork() {
        for owner in owners.values { owner.dropUncommitted() }
    }

    /// After an aborted transaction the in-memory state is ahead of what Kafka holds: rebuild every
    /// owned partition from its snapshot and changelog and seek the inputs back.
    func rebuildOwnedPartitions() throws {
        let partitions = owners.keys.sorted()
        for partition in partitions { retire(partition) }
        for (partition, owner) in try restore(partitions) {
            owners[partition] = owner
            seek(owner)
        }
    }

    /// Seeks a restored partition's inputs to what its state covers. On failure (the consumer may be
    /// giving the partition up, a lost assignment being rejoined) it is retried every round until it
    /// succeeds or the partition is gone, and its records are dropped meanwhile.
    func seek(_ owner: PartitionOwner) {
        let partition = owner.partition
        do {
            try rewind(owner, locations: TopicPartition(topic: options.topics.locations, partition: partition))
            soughtSincePoll.insert(partition)
            if unsought.remove(partition) != nil { log("partition \(partition) sought now") }
        } catch {
            if unsought.insert(partition).inserted {
                log("warning: partition \(partition) not sought now (\(error)); retrying every round")
            }
        }
    }

    func retrySeeks() {
        for partition in unsought.sorted() {
            guard let owner = owners[partition] else {
                unsought.remove(partition)
                continue
            }
            seek(owner)
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

    /// Writes the local snapshots of owned partitions (after a commit: memory equals the changelog),
    /// on hand-over and shutdown; while running, `rotateSnapshots` takes one partition at a time.
    /// The changelog ends come in one request; each partition's snapshot is written on a fold thread.
    func writeSnapshots(only partitions: Set<Int32>? = nil) {
        lastSnapshot = clock.monotonic()
        do {
            try ReplayJob.makeDirectory(options.stateDirectory)
            try ReplayJob.makeDirectory(snapshotDirectory)
        } catch {
            log("warning: no snapshots: \(error)")
            return
        }
        let chosen = owners.keys.sorted().filter { partitions?.contains($0) ?? true }.map { owners[$0]! }
        guard !chosen.isEmpty else { return }
        snapshotWriter.waitUntilIdle()  // one writer per snapshot file
        let changelog = chosen.map { TopicPartition(topic: options.topics.stateChangelog, partition: $0.partition) }
        let ends: [TopicPartition: Int64]
        do {
            ends = try endProbe.endOffsets(changelog, timeout: .seconds(5))
        } catch {
            log("warning: no snapshots: the changelog's end is unknown: \(error)")
            return
        }
        let directory = snapshotDirectory
        let horizon = options.settings.replayHorizon
        let clock = self.clock
        let loan = RoundLoan(value: (chosen, changelog.map { ends[$0] }))
        let results = RoundResults<SnapshotWriter.Result>(count: chosen.count)
        foldThreads.run(items: chosen.count) { index in
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
        report(results.take())
    }

    func publishCounters() {
        var fold = retiredFold
        var processor = retiredProcessor
        var users = 0
        var forcedMerges = retiredForcedMerges
        var corrupt = retiredCorruptSegments
        var consumed = self.consumed
        for owner in owners.values {
            forcedMerges += owner.merge.forcedMerges
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
