import Domain
import KafkaIO

/// Partition ownership: restore on assignment before any input of the partition is folded, hand over
/// on revocation after committing what was folded, drop without committing on loss; seeks, pauses and
/// the merge's stream ends.
extension RuntimeStateMachine {
    // MARK: - Poll

    /// Keeps the round's fixes for `takeFixes` and puts its rebalance events on the agenda, in order. The
    /// partitions this instance owns and one of them says are lost are dropped first: the events came while
    /// it did not poll (a zombie resuming), and a revocation before the loss must not commit their work now.
    mutating func tookPoll(_ records: [ConsumedRecord], _ events: [RebalanceEvent]) {
        assignment.polled = records
        assignment.polledCount = records.count
        var lostNow = Set<Int32>()
        for case let .lost(partitions) in events {
            lostNow.formUnion(mine(partitions).filter { assignment.owners[$0] != nil })
        }
        var steps: [Work] = lostNow.isEmpty ? [] : [.handleLost(lostNow.sorted())]
        for event in events { steps += handling(event) }
        push(steps)
    }

    /// Hands the round's fixes to their partitions: not those fetched before a seek (which fetches them
    /// again), nor those of a partition whose seek has yet to succeed.
    mutating func takeFixes() {
        let round = assignment.pollRound
        for record in assignment.polled {
            let partition = record.partition
            guard !assignment.soughtSincePoll.contains(partition), !assignment.unsought.contains(partition) else { continue }
            assignment.owners[partition]?.take(fix: record, round: round)
        }
        assignment.polled.removeAll()
    }

    // MARK: - Rebalances

    private func mine(_ partitions: [TopicPartition]) -> [Int32] {
        partitions.filter { $0.topic == options.topics.locations }.map(\.partition)
    }

    /// The steps one rebalance event takes.
    private func handling(_ event: RebalanceEvent) -> [Work] {
        switch event {
        case let .revoked(partitions):
            let mine = mine(partitions)
            return mine.isEmpty ? [] : [.handleRevoked(mine)]
        case let .lost(partitions):
            let mine = mine(partitions)
            return mine.isEmpty ? [] : [.handleLost(mine)]
        case let .assigned(partitions):
            let mine = mine(partitions).sorted()
            guard !mine.isEmpty else { return [] }
            // Assigned again without a hand-over: their uncommitted work is dropped first. A transaction of
            // this instance in flight ends before any restore: it may hold their changelogs' ends back.
            let reassigned = mine.filter { assignment.owners[$0] != nil }
            let before: [Work] = reassigned.isEmpty ? [] : [.reassign(reassigned)]
            return [.forget(mine), .awaitOutcome] + before + [.restore(mine, then: .assigned, retry: false)]
        case let .failed(error):
            return [.log("warning: rebalance failed: \(error)")]
        }
    }

    /// Hands revoked partitions over cleanly: what was folded is committed before another instance resumes
    /// them, and they are released to the group only then (until then nobody else is given them).
    mutating func handleRevoked(_ partitions: [Int32]) {
        forget(partitions)
        let owned = partitions.filter { assignment.owners[$0] != nil }
        push(Self.commitEverything + [
            .writeSnapshots(only: Set(owned)), .retire(owned), .perform(.removeCommands(owned)), .perform(.release(partitions)),
            .log("gave up partitions \(partitions.sorted())"),
        ])
    }

    /// Lost partitions: another member may own them already, so nothing folded since the last commit may be
    /// committed now. A transaction in flight ends first (on Kafka, its offsets carry the old generation and
    /// it is refused). The uncommitted work is dropped, and the partitions still owned are rebuilt from what
    /// was committed. Those dropped already (`tookPoll`) are not dropped twice.
    mutating func handleLost(_ partitions: [Int32]) {
        let held = partitions.filter {
            assignment.owners[$0] != nil || assignment.awaitingRestore[$0]?.then == .rebuilt
        }
        forget(partitions)
        guard !held.isEmpty else { return }
        push(.awaitOutcome, .discardOpen, .retire(held), .perform(.removeCommands(held)), .rebuildOwned, .lost(held))
    }

    /// Partitions assigned again without a hand-over: their uncommitted work is dropped, so must be what
    /// they sent early, and the others' early outputs go with it (one transaction), their work folded again.
    mutating func reassign(_ partitions: [Int32]) {
        let rebuildOthers = !pipeline.sentEarly.isEmpty
        push((rebuildOthers ? [.discardOpen] : []) + [.retire(partitions)] + (rebuildOthers ? [.rebuildOwned] : []))
    }

    /// After the restore of newly assigned partitions: their commands are read from their checkpoints
    /// (or the beginning), and their fixes sought to the checkpoint when there is one (to where the group's
    /// offsets or the log begin, `seekingAll`, for those whose restore waited while their records went by).
    mutating func tookPartitions(_ partitions: [Int32], seekingAll: Bool) {
        var steps: [Work] = []
        var resumed: [String] = []
        for partition in partitions {
            guard let owner = assignment.owners[partition] else { continue }
            steps.append(.perform(.addCommands(partition, owner.hasCheckpoint ? .offset(owner.commandsOffset) : .beginning)))
            if owner.hasCheckpoint || seekingAll { steps.append(.seek(partition)) }
            resumed.append(owner.hasCheckpoint ? "\(partition) at \(owner.locationsOffset)/\(owner.commandsOffset)" : "\(partition)")
        }
        metrics { $0.groupLost = false }
        push(steps + [.log("took partitions \(partitions) (resuming fixes/commands: \(resumed.joined(separator: ", ")))")])
    }

    // MARK: - Giving partitions up

    /// Forgets partitions given up, keeping their counters. - Returns: their owners, for the executor
    /// to let go of (stores closed, fetching resumed if paused).
    mutating func retire(_ partitions: [Int32]) -> [PartitionOwner] {
        var retired: [PartitionOwner] = []
        for partition in partitions {
            guard let owner = assignment.owners.removeValue(forKey: partition) else { continue }
            upkeep.retired.consumed[options.topics.locations, default: 0] += owner.foldedFixes
            upkeep.retired.consumed[options.topics.tripCommands, default: 0] += owner.foldedCommands
            upkeep.retired.fold.add(owner.engine.foldCounters)
            upkeep.retired.processor.add(owner.engine.processorCounters)
            upkeep.retired.forcedMerges += owner.merge.forcedMerges
            upkeep.retired.corruptSegments += owner.history.corruptSegments
            assignment.unsought.remove(partition)
            retired.append(owner)
        }
        return retired
    }

    /// After an aborted transaction the in-memory state is ahead of what Kafka holds: every owned
    /// partition is rebuilt from its snapshot and changelog and its inputs sought back.
    mutating func rebuildOwnedPartitions() {
        let partitions = assignment.owners.keys.sorted()
        push(.retire(partitions), .restore(partitions, then: .rebuilt, retry: false))
    }

    // MARK: - Restores

    /// Partitions whose committed offsets are stable are restored now; the others wait, tried again every
    /// second: a transaction with offsets pending for them (KIP-447: an instance that lost them, before its
    /// session expired) may still commit their changelog, which a restore now would not see.
    mutating func checkedStable(ready: [Int32], pending: [Int32], committed: [TopicPartition: Int64]) {
        guard let (then, retry) = assignment.restoring else { return }
        assignment.restoring = nil
        wait(pending, then: then, because: "a transaction with offsets pending for it ends")
        // Waiting for long, the committed offsets are not waited for any more (an operator may have moved them).
        let topics = options.topics
        let patient = committed.filter { place in
            guard let waiting = assignment.awaitingRestore[place.key.partition] else { return true }
            return now.monotonic - waiting.since < 300 || place.key.topic != topics.locations && place.key.topic != topics.tripCommands
        }
        push(.restoreNow(ready, then: then, retry: retry, committed: patient))
    }

    /// Installs restored partitions; those whose changelog could not be read as far as their committed offsets
    /// (a transaction left open holds its last stable offset back) wait.
    mutating func restored(_ owners: [PartitionOwner], unreadable: [Int32]) {
        for owner in owners {
            assignment.owners[owner.partition] = owner
            assignment.awaitingRestore[owner.partition] = nil
        }
        guard let (then, _) = assignment.restoring else { return }
        assignment.restoring = nil
        wait(unreadable, then: then, because: "its changelog can be read as far as its committed offsets")
    }

    private mutating func wait(_ partitions: [Int32], then: AfterRestore, because: String) {
        for partition in partitions where assignment.awaitingRestore[partition] == nil {
            assignment.awaitingRestore[partition] = (then, now.monotonic)
            log("partition \(partition) waits to be restored until \(because)")
        }
        if !partitions.isEmpty { assignment.nextRestoreRetry = now.monotonic + 1 }
    }

    mutating func retryRestores() {
        guard !assignment.awaitingRestore.isEmpty, now.monotonic >= assignment.nextRestoreRetry else { return }
        assignment.nextRestoreRetry = now.monotonic + 1
        var steps: [Work] = []
        for then in [AfterRestore.rebuilt, .assigned] {
            let partitions = assignment.awaitingRestore.filter { $0.value.then == then }.keys.sorted()
            if !partitions.isEmpty { steps.append(.restore(partitions, then: then, retry: true)) }
        }
        push(steps)
    }

    /// Partitions revoked, lost or assigned again no longer wait for a restore decided before.
    mutating func forget(_ partitions: [Int32]) {
        for partition in partitions { assignment.awaitingRestore[partition] = nil }
    }

    // MARK: - Seeks

    /// A seek's outcome. On failure (the consumer may be giving the partition up, a lost assignment being
    /// rejoined) it is retried every round until it succeeds or the partition is gone, and its records
    /// are dropped meanwhile.
    mutating func sought(_ partition: Int32, failure: (any Error)?) {
        if let failure {
            if assignment.unsought.insert(partition).inserted {
                log("warning: partition \(partition) not sought now (\(failure)); retrying every round")
            }
            return
        }
        assignment.soughtSincePoll.insert(partition)
        if assignment.unsought.remove(partition) != nil { log("partition \(partition) sought now") }
    }

    mutating func retrySeeks() {
        var seeks: [Work] = []
        for partition in assignment.unsought.sorted() {
            guard assignment.owners[partition] != nil else {
                assignment.unsought.remove(partition)
                continue
            }
            seeks.append(.seek(partition))
        }
        push(seeks)
    }

    // MARK: - Stream ends and backpressure

    /// Asks the brokers where the streams that some head waits on end (one request per topic), now that
    /// this round's records are taken.
    mutating func confirmEnds() -> RuntimeAction? {
        let owners = assignment.owners
        let fixes = owners.keys.filter { owners[$0]!.merge.awaitsFixesEnd }
        let commands = owners.keys.filter { owners[$0]!.merge.awaitsCommandsEnd }
        guard !fixes.isEmpty || !commands.isEmpty else { return nil }
        assignment.confirming = Array(Set(fixes + commands))
        return .confirmEnds(fixes: fixes, commands: commands)
    }

    mutating func confirmedEnds(fixes: [Int32: StreamMerge.StreamEnd], commands: [Int32: StreamMerge.StreamEnd]) {
        for partition in assignment.confirming {
            assignment.owners[partition]?.merge.confirmEnds(fixes: fixes[partition], commands: commands[partition],
                                                            round: assignment.pollRound)
        }
        assignment.confirming = []
    }

    /// Pauses fetching for partitions whose merge holds `maxPendingInputs` inputs (a silent other
    /// stream, or folding held back by a slow commit) and resumes them once half was folded.
    mutating func applyBackpressure() {
        let limit = options.maxPendingInputs
        var pause: [Int32] = [], resume: [Int32] = []
        for (partition, owner) in assignment.owners {
            if !owner.paused, owner.pendingCount >= limit {
                owner.paused = true
                pause.append(partition)
            } else if owner.paused, owner.pendingCount <= limit / 2 {
                owner.paused = false
                resume.append(partition)
            }
        }
        guard !pause.isEmpty || !resume.isEmpty else { return }
        push((pause.isEmpty ? [] : [.perform(.pause(pause))]) + (resume.isEmpty ? [] : [.perform(.resume(resume))]))
        let paused = assignment.owners.values.filter(\.paused).count
        let pauses = pause.count
        metrics {
            $0.pausedPartitions = paused
            $0.partitionPauses += pauses
        }
    }
}
