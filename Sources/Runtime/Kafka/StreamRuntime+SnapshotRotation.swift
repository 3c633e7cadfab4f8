import Domain
import KafkaIO

/// Periodic snapshots without stopping any partition: one partition at a time, its fold is imaged at
/// a seal (a copy of a value, sharing storage until the fold changes it), and once the transaction
/// sealed with it committed, that image is exactly what the partition's changelog holds up to its
/// end: the `SnapshotWriter` thread encodes and writes it while the partition folds on.
///
/// Writing every partition at once after committing everything stalled the whole instance for the
/// commit and the encoding of every user, every `snapshotInterval`. Holding one partition until its
/// last transaction committed and writing its snapshot on its fold thread instead still made that
/// partition's inputs wait a commit and an encoding: at 50,000 fixes/s that alone doubled the p99
/// input-to-commit latency (`bench --pipeline --latency-rate 50000`, snapshots every 30 s against
/// none within the probe's 10 s).
extension StreamRuntime {
    /// Chooses the partition whose snapshot is oldest once it is `snapshotInterval` old, at most one
    /// at a time and one per `snapshotInterval / owned partitions`, so the snapshots spread over the
    /// interval. A clean partition (nothing folded since its last commit) is imaged at once; another
    /// at its next seal.
    func rotateSnapshots() {
        guard !owners.isEmpty else { return }
        let now = clock.monotonic()
        let interval = Double(options.snapshotInterval) / 1000
        if !snapshotWriter.isBusy, !owners.values.contains(where: { $0.snapshotCapture.isPending }),
            now - lastSnapshot >= interval / Double(owners.count),
            let oldest = owners.values.min(by: { ($0.lastSnapshotAt, $0.partition) < ($1.lastSnapshotAt, $1.partition) }),
            now - oldest.lastSnapshotAt >= interval
        {
            lastSnapshot = now
            oldest.snapshotCapture = .atNextSeal
        }
        // One waiting for a seal that is clean (it went quiet) has nothing to seal: imaged now. Nothing
        // of it is uncommitted or in flight, and nothing is written to its changelog before the next
        // seal, which this driver makes after asking for the end.
        var imaged = false
        for owner in owners.values where owner.snapshotCapture.awaitsSeal && !owner.dirty && !owner.sealedUncommitted {
            owner.imageWhenClean(horizon: options.settings.replayHorizon)
            imaged = true
        }
        if imaged { writeCommittedImages() }
    }

    /// Hands the committed images to the writer with the changelog ends they cover (one request).
    /// A partition whose end cannot be learned (the broker refuses the request) folds on, and its
    /// snapshot waits for the next interval.
    func writeCommittedImages() {
        let committed = owners.keys.sorted().compactMap { partition -> PartitionOwner? in
            guard case .committed = owners[partition]!.snapshotCapture else { return nil }
            return owners[partition]!
        }
        guard !committed.isEmpty else { return }
        let now = clock.monotonic()
        let changelog = committed.map { TopicPartition(topic: options.topics.stateChangelog, partition: $0.partition) }
        let ends = try? endProbe.endOffsets(changelog, timeout: .seconds(1))
        for (owner, topicPartition) in zip(committed, changelog) {
            guard case let .committed(image, checkpoint) = owner.snapshotCapture else { continue }
            owner.snapshotCapture = .none
            owner.lastSnapshotAt = now
            guard let end = ends?[topicPartition] else {
                log("warning: snapshot of partition \(owner.partition) not written: its changelog's end is unknown; "
                    + "retrying in \(options.snapshotInterval / 1000) s")
                continue
            }
            do {
                // The snapshot claims the history store as of its image: the store holds at least that.
                try owner.history.synchronize()
            } catch {
                log("warning: snapshot of partition \(owner.partition) not written: \(error)")
                continue
            }
            snapshotWriter.submit(.init(partition: owner.partition, image: image, checkpoint: checkpoint,
                                        changelogEnd: end, directory: snapshotDirectory))
        }
    }

    /// What the snapshots written since the last call took, or why they failed.
    func reportRotatedSnapshots() { report(snapshotWriter.takeResults()) }

    func report(_ snapshots: [SnapshotWriter.Result]) {
        for result in snapshots {
            switch result.outcome {
            case let .success(seconds): metrics.update { $0.snapshotSeconds.observe(seconds) }
            case let .failure(reason): log("warning: snapshot of partition \(result.partition) not written: \(reason)")
            }
        }
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

    /// Users idle beyond the horizon leave memory before an image (their state goes to the local
    /// store; the snapshot no longer holds them). Their state is committed already (they were not
    /// touched since the last seal): the store's writes join the generation being folded.
    func evictIdleUsers(horizon: Int64) -> Int {
        let streamTime = processor.fold.streamTime
        guard streamTime != .min else { return 0 }
        return processor.fold.evictIdleUsers(before: streamTime - horizon)
    }

    /// `evictIdleUsers`, in a partition with nothing uncommitted: their state goes to the store at once.
    private func evictIdleUsersNow(horizon: Int64) throws {
        if evictIdleUsers(horizon: horizon) > 0 { try history.commit() }
    }

    /// Images a clean partition now (nothing uncommitted).
    func imageWhenClean(horizon: Int64) {
        do { try evictIdleUsersNow(horizon: horizon) } catch { return }  // the store's failure is reported by the next seal
        snapshotCapture = .committed(image: processor.fold, checkpoint: checkpoint)
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
        return SnapshotWriter.write(.init(partition: partition, image: processor.fold, checkpoint: checkpoint,
                                          changelogEnd: changelogEnd, directory: directory),
                                    monotonic: monotonic)
    }
}
