import Domain
import KafkaIO

/// Partition ownership: restore on assignment before any input of the partition is folded, hand over
/// on revocation after committing what was folded, drop without committing on loss; seeks, pauses and
/// the merge's stream ends.
extension RuntimeStateMachine {
    // MARK: - Poll

    /// Keeps the round's fixes for `takeFixes` and puts its rebalance events on the agenda, in order.
    mutating func tookPoll(_ records: [ConsumedRecord], _ events: [RebalanceEvent]) {
        assignment.polled = records
        assignment.polledCount = records.count
        var steps: [Work] = []
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
            guard !mine.isEmpty else { return [] }
            // Hand over cleanly: what was folded is committed before another instance resumes.
            // Released to the group only then: until then nobody else is given them.
            return [.forget(mine)] + Self.commitEverything + [
                .writeSnapshots(only: Set(mine)), .retire(mine), .perform(.removeCommands(mine)), .perform(.release(mine)),
                .log("gave up partitions \(mine.sorted())"),
            ]
        case let .lost(partitions):
            let mine = mine(partitions)
            guard !mine.isEmpty else { return [] }
            // Another member may own them already: nothing folded since the last commit may be
            // committed now. A transaction in flight ends first (on Kafka, its offsets carry the old
            // generation and it is refused). The uncommitted work is dropped, and the partitions
            // still owned are rebuilt from what was committed.
            return [.forget(mine), .awaitOutcome, .discardOpen, .retire(mine), .perform(.removeCommands(mine)),
                    .rebuildOwned, .lost(mine)]
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

    /// Partitions whose committed offsets are stable are restored now; the others wait, retried every round:
    /// a transaction with offsets pending for them (KIP-447: an instance that lost them, before its session
    /// expired) may still commit their changelog, which a restore now would not see.
    mutating func checkedStable(ready: [Int32], pending: [Int32], committed: [TopicPartition: Int64]) {
        guard let (_, then, retry) = assignment.checking else { return }
        assignment.checking = nil
        for partition in pending where assignment.awaitingStable.updateValue(then, forKey: partition) == nil {
            log("partition \(partition) waits for a transaction with offsets pending for it to end before its restore")
        }
        for partition in ready { assignment.awaitingStable[partition] = nil }
        push(.restoreNow(ready, then: then, retry: retry, committed: committed))
    }

    mutating func retryRestores() {
        guard !assignment.awaitingStable.isEmpty else { return }
        var steps: [Work] = []
        for then in [AfterRestore.rebuilt, .assigned] {
            let partitions = assignment.awaitingStable.filter { $0.value == then }.keys.sorted()
            if !partitions.isEmpty { steps.append(.restore(partitions, then: then, retry: true)) }
        }
        push(steps)
    }

    /// Partitions revoked, lost or assigned again no longer wait for a restore decided before.
    mutating func forget(_ partitions: [Int32]) {
        for partition in partitions { assignment.awaitingStable[partition] = nil }
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
