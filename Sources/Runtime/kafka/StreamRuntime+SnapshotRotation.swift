import Domain
import KafkaIO

/// Periodic snapshots without stopping the fold: one partition at a time is held (its inputs wait
/// in its merge, the other partitions fold on), its last transaction commits, and then, its memory
/// equal to its changelog, a fold thread writes its snapshot in place of a fold round and lets it go.
///
/// Writing every partition at once after committing everything stalled the whole instance for the
/// commit and the encoding of every user, every `snapshotInterval`: a second in which no input of
/// any partition was folded. Here only the held partition's inputs wait, about one commit longer.
extension StreamRuntime {
    /// Seconds a held partition, once clean, may wait for its changelog's end before it folds on
    /// without a snapshot: half the interval, from 1 to 10 s. (Until it is clean it waits for its
    /// last transaction, which commits, or aborts and rebuilds the partition.)
    var longestSnapshotHold: Double { min(10, max(1, Double(options.snapshotInterval) / 2000)) }

    /// Holds the partition whose snapshot is oldest once it is `snapshotInterval` old, at most one at
    /// a time and one per `snapshotInterval / owned partitions`, so the snapshots spread over the
    /// interval; then asks where the changelog of each held partition ends once it is clean.
    func rotateSnapshots() {
        guard !owners.isEmpty else { return }
        let now = clock.monotonic()
        let interval = Double(options.snapshotInterval) / 1000
        if !owners.values.contains(where: { $0.snapshotHold != .none }),
            now - lastSnapshot >= interval / Double(owners.count),
            let oldest = owners.values.min(by: { ($0.lastSnapshotAt, $0.partition) < ($1.lastSnapshotAt, $1.partition) }),
            now - oldest.lastSnapshotAt >= interval
        {
            oldest.snapshotHold = .waiting
            oldest.heldSince = now
            lastSnapshot = now
        }
        // A partition is never held long: if its changelog's end cannot be learned (the broker refuses
        // the request), it folds on and its snapshot waits for the next interval.
        for owner in owners.values where owner.snapshotHold != .none && now - (owner.heldCleanSince ?? now) > longestSnapshotHold {
            log("warning: snapshot of partition \(owner.partition) not written: its changelog's end was not known "
                + "within \(Int(longestSnapshotHold)) s; retrying in \(options.snapshotInterval / 1000) s")
            owner.releaseSnapshotHold(at: now)
            owner.lastSnapshotAt = now
        }
        // Clean (nothing folded since its last seal) and nothing of it in flight: its memory is what
        // its changelog holds, and nothing more is written to that changelog partition while it is held.
        let clean = owners.values.filter { $0.snapshotHold == .waiting && !$0.dirty && !$0.sealedUncommitted }
        guard !clean.isEmpty else { return }
        for owner in clean where owner.heldCleanSince == nil { owner.heldCleanSince = now }
        let changelog = clean.map { TopicPartition(topic: options.topics.stateChangelog, partition: $0.partition) }
        guard let ends = try? endProbe.endOffsets(changelog, timeout: .seconds(1)) else { return }  // asked again next round
        for owner in clean {
            if let end = ends[TopicPartition(topic: options.topics.stateChangelog, partition: owner.partition)] {
                owner.snapshotHold = .ready(changelogEnd: end)
            }
        }
    }

    /// After a fold round: what the snapshots written in it took, or why they failed.
    func reportRotatedSnapshots() {
        for owner in owners.values {
            guard let result = owner.takeSnapshotResult() else { continue }
            switch result {
            case let .written(seconds): metrics.update { $0.snapshotSeconds.observe(seconds) }
            case let .failed(reason): log("warning: snapshot of partition \(owner.partition) not written: \(reason)")
            }
        }
    }
}

extension PartitionOwner {
    /// Where a partition is in the snapshot rotation.
    enum SnapshotHold: Equatable {
        case none
        /// Not folded until its last transaction committed and its changelog's end is known.
        case waiting
        /// Clean at this changelog end: the next fold round writes its snapshot instead of folding it.
        case ready(changelogEnd: Int64)
    }

    enum SnapshotResult {
        case written(seconds: Double)
        case failed(String)
    }

    /// Writes the snapshot of a partition held clean at `changelogEnd` (on its fold thread): users idle
    /// beyond the horizon leave memory first (their state goes to the local store, written before the
    /// snapshot that no longer holds them), and the history store is made durable before the
    /// snapshot claims it.
    func writeHeldSnapshot(changelogEnd: Int64, directory: String, horizon: Int64, monotonic: () -> Double) {
        let started = monotonic()
        do {
            let streamTime = processor.fold.streamTime
            if streamTime != .min, processor.fold.evictIdleUsers(before: streamTime - horizon) > 0 {
                try history.commit()
            }
            try history.synchronize()
            let snapshot = PartitionSnapshot(partition: partition, changelogOffset: changelogEnd, checkpoint: checkpoint,
                                             timelines: processor.fold.allTimelines().map(\.parts))
            try snapshot.write(directory: directory)
            snapshotResult = .written(seconds: monotonic() - started)
        } catch {
            snapshotResult = .failed("\(error)")
        }
        lastSnapshotAt = started
        releaseSnapshotHold(at: monotonic())
    }

    /// Lets a held partition fold again.
    func releaseSnapshotHold(at now: Double) {
        guard snapshotHold != .none else { return }
        merge.excuse(now - heldSince)  // its heads waited for the snapshot, not for a silent stream
        snapshotHold = .none
        heldCleanSince = nil
    }

    func takeSnapshotResult() -> SnapshotResult? {
        defer { snapshotResult = nil }
        return snapshotResult
    }
}
