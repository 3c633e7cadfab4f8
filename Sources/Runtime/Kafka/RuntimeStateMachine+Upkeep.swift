import Domain
import KafkaIO

/// What goes on beside folding: periodic snapshots without stopping any partition, the lag gauge, the
/// counters.
///
/// Snapshots, one partition at a time: its fold is imaged at a seal (a copy of a value, sharing storage
/// until the fold changes it), and once the transaction sealed with it committed, that image is exactly
/// what the partition's changelog holds up to its end: the `SnapshotWriter` thread encodes and writes it
/// while the partition folds on. Writing every partition at once after committing everything stalled the
/// whole instance for the commit and the encoding of every user, every `snapshotInterval`. Holding one
/// partition until its last transaction committed and writing its snapshot on its fold thread instead
/// still made that partition's inputs wait a commit and an encoding: at 50,000 fixes/s that alone doubled
/// the p99 input-to-commit latency (`bench --pipeline --latency-rate 50000`, snapshots every 30 s against
/// none within the probe's 10 s).
extension RuntimeStateMachine {
    var snapshotDirectory: String { options.stateDirectory + "/" + options.group }

    /// Chooses the partition whose snapshot is oldest once it is `snapshotInterval` old, at most one
    /// at a time and one per `snapshotInterval / owned partitions`, so the snapshots spread over the
    /// interval. A clean partition (nothing folded since its last commit) is imaged at once; another
    /// at its next seal.
    mutating func rotateSnapshots(writerBusy: Bool) {
        let owners = assignment.owners.values
        guard !owners.isEmpty else { return }
        let now = now.monotonic
        let interval = Double(options.snapshotInterval) / 1000
        if !writerBusy, !owners.contains(where: { $0.snapshotCapture.isPending }),
            now - upkeep.lastSnapshot >= interval / Double(owners.count),
            let oldest = owners.min(by: { ($0.lastSnapshotAt, $0.partition) < ($1.lastSnapshotAt, $1.partition) }),
            now - oldest.lastSnapshotAt >= interval
        {
            upkeep.lastSnapshot = now
            oldest.snapshotCapture = .atNextSeal
        }
        // One waiting for a seal that is clean (it went quiet) has nothing to seal: imaged now. Nothing
        // of it is uncommitted or in flight, and nothing is written to its changelog before the next
        // seal, which this driver makes after asking for the end.
        let clean = assignment.sortedOwners.filter { $0.snapshotCapture.awaitsSeal && !$0.dirty && !$0.sealedUncommitted }
        if !clean.isEmpty { push(.perform(.imageClean(clean)), .writeCommittedImages) }
    }

    /// Asks where the changelogs of the partitions imaged as committed end (one request), for their
    /// snapshots.
    mutating func writeCommittedImages() -> RuntimeAction? {
        let committed = assignment.sortedOwners.filter {
            if case .committed = $0.snapshotCapture { true } else { false }
        }
        guard !committed.isEmpty else { return nil }
        upkeep.imagesAwaitingEnds = committed.map(\.partition)
        upkeep.imagesTakenAt = now.monotonic
        return .changelogEnds(upkeep.imagesAwaitingEnds)
    }

    /// Hands the committed images to the writer with the changelog ends they cover. A partition whose end
    /// cannot be learned (the broker refuses the request) folds on, and its snapshot waits for the next
    /// interval.
    mutating func submitCommittedImages(ends: [TopicPartition: Int64]?) {
        var jobs: [(owner: PartitionOwner, job: SnapshotWriter.Job)] = []
        for partition in upkeep.imagesAwaitingEnds {
            guard let owner = assignment.owners[partition],
                case let .committed(image, checkpoint) = owner.snapshotCapture
            else { continue }
            owner.snapshotCapture = .none
            owner.lastSnapshotAt = upkeep.imagesTakenAt
            let changelog = TopicPartition(topic: options.topics.stateChangelog, partition: partition)
            guard let end = ends?[changelog] else {
                log("warning: snapshot of partition \(partition) not written: its changelog's end is unknown; "
                    + "retrying in \(options.snapshotInterval / 1000) s")
                continue
            }
            jobs.append((owner, SnapshotWriter.Job(partition: partition, image: image, checkpoint: checkpoint,
                                                    changelogEnd: end, directory: snapshotDirectory)))
        }
        upkeep.imagesAwaitingEnds = []
        if !jobs.isEmpty { push(.perform(.submitSnapshots(jobs))) }
    }

    /// Writes the local snapshots of owned partitions (after a commit: memory equals the changelog), on
    /// hand-over and shutdown; while running, `rotateSnapshots` takes one partition at a time.
    mutating func writeSnapshots(only partitions: Set<Int32>?) -> RuntimeAction? {
        upkeep.lastSnapshot = now.monotonic
        let chosen = assignment.sortedOwners.filter { partitions?.contains($0.partition) ?? true }
        return chosen.isEmpty ? nil : .writeSnapshots(chosen)
    }

    /// What the snapshots written since the last round took, or why they failed.
    mutating func report(_ snapshots: [SnapshotWriter.Result]) {
        for result in snapshots {
            switch result.outcome {
            case let .success(seconds): metrics { $0.snapshotSeconds.observe(seconds) }
            case let .failure(reason): log("warning: snapshot of partition \(result.partition) not written: \(reason)")
            }
        }
    }

    // MARK: - Lag

    /// Warns of partitions folding nothing for long, and asks the fixes' ends of every owned partition
    /// in one request: the driver must not stall a round trip per partition.
    mutating func updateLag() -> RuntimeAction? {
        let now = now.monotonic
        upkeep.lastLagCheck = now
        for owner in assignment.sortedOwners where owner.merge.waiting(now: now) > 10 {
            if let why = owner.merge.waitDescription(now: now) {
                log("warning: partition \(owner.partition) folds nothing: \(why)")
            }
        }
        return assignment.owners.isEmpty ? nil : .measureLag(Array(assignment.owners.keys))
    }

    mutating func measuredLag(_ ends: [TopicPartition: Int64]?) {
        guard let ends else { return }
        var lag: [Int32: Int64] = [:]
        for (partition, end) in ends {
            if let owner = assignment.owners[partition.partition] {
                lag[partition.partition] = max(0, end - owner.locationsOffset)
            }
        }
        metrics { $0.lag = lag }
    }

    // MARK: - Counters

    mutating func publishCounters() {
        var counters = upkeep.retired
        for owner in assignment.owners.values {
            counters.forcedMerges += owner.merge.forcedMerges
            counters.corruptSegments += owner.history.corruptSegments
            counters.consumed[options.topics.locations, default: 0] += owner.foldedFixes
            counters.consumed[options.topics.tripCommands, default: 0] += owner.foldedCommands
            counters.fold.add(owner.engine.foldCounters)
            counters.processor.add(owner.engine.processorCounters)
            counters.users += owner.engine.userCount
        }
        publish(counters)
    }
}

extension PartitionOwner {
    /// Where a partition is in the snapshot rotation.
    enum SnapshotCapture {
        case none
        /// Imaged at its next seal.
        case atNextSeal
        /// Imaged at a seal whose transaction has not committed yet.
        case sealed(image: PartitionFold, checkpoint: PartitionCheckpoint)
        /// Imaged as its changelog holds it (committed): waits for the changelog's end.
        case committed(image: PartitionFold, checkpoint: PartitionCheckpoint)

        var isPending: Bool {
            if case .none = self { false } else { true }
        }

        var awaitsSeal: Bool {
            if case .atNextSeal = self { true } else { false }
        }
    }

    /// `evictIdleUsers`, in a partition with nothing uncommitted: their state goes to the store at once.
    private func evictIdleUsersNow(horizon: Int64) throws {
        if evictIdleUsers(horizon: horizon) > 0 { try history.commit() }
    }

    /// Images a clean partition now (nothing uncommitted).
    func imageWhenClean(horizon: Int64) {
        do { try evictIdleUsersNow(horizon: horizon) } catch { return }  // the store's failure is reported by the next seal
        snapshotCapture = .committed(image: engine.image, checkpoint: imageCheckpoint)
    }

    /// Writes the snapshot of a partition whose memory equals its changelog up to `changelogEnd` (all
    /// committed: hand-over and shutdown), on a fold thread.
    func writeSnapshot(changelogEnd: Int64, directory: String, horizon: Int64, monotonic: () -> Double)
        -> SnapshotWriter.Result
    {
        lastSnapshotAt = monotonic()
        snapshotCapture = .none
        do {
            try evictIdleUsersNow(horizon: horizon)
            try history.synchronize()
        } catch {
            return SnapshotWriter.Result(partition: partition, outcome: .failure(RuntimeError.snapshotFailed(reason: "\(error)")))
        }
        return SnapshotWriter.write(.init(partition: partition, image: engine.image, checkpoint: imageCheckpoint,
                                          changelogEnd: changelogEnd, directory: directory),
                                    monotonic: monotonic)
    }
}
