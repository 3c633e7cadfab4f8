import Codec
import Domain
import KafkaIO

/// The service as a value: it takes inputs (the results of the actions it asked for, among them poll
/// results, rebalance events and the outcomes of transactions; ticks of the clock; stop) and returns
/// the next action for an executor to carry out over the broker's clients. Nothing in it does I/O,
/// reads a clock or starts a thread: `StreamRuntime` runs it on real threads and the real clock, the
/// simulation (`tripstream-sim`) on one thread, a simulated clock and a broker that fails on purpose.
///
/// Its state comes in three parts: ``Assignment`` (the owned partitions, seeks, pauses),
/// ``CommitPipeline`` (the transaction in flight, what was sent early, what waits for the next seal)
/// and ``Upkeep`` (snapshots, lag, counters). What it still has to do is an agenda of small steps:
/// a poll round, or the hand-over of revoked partitions, runs as a sequence of them, each either
/// deciding from the state or returning an action and waiting for its result.
///
/// A round: poll (and apply rebalances) → take the fixes → poll commands and confirm stream ends →
/// poll geofences → apply the outcome of the transaction in flight → fold → pause or resume →
/// seal a transaction when due → send outputs early → rotate snapshots → measure lag. How it works,
/// action by action: docs/runtime-state-machine.md.
struct RuntimeStateMachine {
    let options: RuntimeOptions
    var assignment = Assignment()
    var pipeline: CommitPipeline
    var upkeep: Upkeep
    /// What is left to do, the next step last.
    private var agenda: [Work] = []
    /// The clock's reading at the current input.
    private(set) var now: RuntimeInstant
    private var stopRequested = false
    private var ending: RuntimeAction?
    private var reports: [RuntimeReport] = []

    /// - Parameters:
    ///   - shared: outputs of no input partition gathered while starting (geofences rejected).
    init(options: RuntimeOptions, shared: OutputBatch, at now: RuntimeInstant) {
        self.options = options
        self.now = now
        pipeline = CommitPipeline(shared: shared, lastSeal: now.monotonic)
        upkeep = Upkeep(lastSnapshot: now.monotonic, lastLagCheck: now.monotonic)
    }

    /// A step of the agenda.
    enum Work {
        // A round
        case poll
        case rebalance
        case reportOwnedPartitions
        case retrySeeks
        case takeFixes
        case pollCommands
        case confirmEnds
        case pollGeofences
        case takeOutcome
        case fold
        case measureCaughtUp
        case backpressure
        case sealIfDue(force: Bool)
        case sealAfterWaiting(started: Double)
        case seal(started: Double)
        case sendEarly
        case rotateSnapshots
        case checkLag
        // Steps of rebalances, aborts and shutdown
        case perform(RuntimeAction)
        case awaitOutcome
        case discardOpen
        case retire([Int32])
        case rebuildOwned
        case restore([Int32], then: AfterRestore, retry: Bool)
        case restoreNow([Int32], then: AfterRestore, retry: Bool, committed: [TopicPartition: Int64])
        case retryRestores
        case forget([Int32])
        case handleRevoked([Int32])
        case handleLost([Int32])
        case seek(Int32)
        case reassign([Int32])
        case tookPartitions([Int32], seekingAll: Bool)
        case writeSnapshots(only: Set<Int32>?)
        case writeCommittedImages
        case publishCounters
        case log(String)
        case lost([Int32])
        case finish
    }

    /// What follows a restore.
    enum AfterRestore: Equatable {
        /// Rebuilt after an abort or a loss: sought back to what their state covers.
        case rebuilt
        /// Newly assigned: their commands read and their fixes sought from their checkpoints.
        case assigned
    }

    // MARK: - Inputs

    /// Asks for a graceful stop: the round under way ends, then the machine folds what was fetched,
    /// commits it, writes snapshots and finishes.
    mutating func requestStop() { stopRequested = true }

    /// The next action to carry out, at `now`.
    mutating func nextAction(at now: RuntimeInstant) -> RuntimeAction {
        self.now = now
        while true {
            if let ending { return ending }
            guard let work = agenda.popLast() else {
                startRound()
                continue
            }
            if let action = run(work) { return action }
        }
    }

    /// How the last action went, at `now`.
    mutating func receive(_ result: RuntimeActionResult, at now: RuntimeInstant) {
        self.now = now
        switch result {
        case .done: break
        case let .polled(records, events): tookPoll(records, events)
        case let .commandsPolled(records):
            for record in records { assignment.owners[record.partition]?.take(command: record, round: assignment.pollRound) }
        case let .streamEnds(fixes, commands): confirmedEnds(fixes: fixes, commands: commands)
        case let .geofencesPolled(changed, geofences, deadLetters):
            pipeline.shared.append(contentsOf: deadLetters)
            if changed { metrics { $0.geofences = geofences } }
        case let .sought(partition, failure): sought(partition, failure: failure)
        case let .lag(ends): measuredLag(ends)
        case let .changelogEnds(ends): submitCommittedImages(ends: ends)
        case let .restored(owners, unreadable): restored(owners, unreadable: unreadable)
        case let .stable(ready, pending, committed): checkedStable(ready: ready, pending: pending, committed: committed)
        case let .folded(seconds, snapshots):
            report(snapshots)
            if assignment.polledCount > 0 { metrics { $0.foldBatchSeconds.observe(seconds) } }
        case let .sealed(transaction):
            pipeline.inFlight = true
            pipeline.lastSeal = pipeline.sealStarted
            push(.perform(.submit(transaction)))
        case let .producer(acceptsEarly): if acceptsEarly { sendOutputsEarly() }
        case let .snapshotWriter(busy): rotateSnapshots(writerBusy: busy)
        case let .transactionEnded(receipt, outcome): apply(outcome, of: receipt)
        case .noTransactionOutcome: break
        case let .discarded(outcome): discarded(outcome)
        }
    }

    /// Log lines and metric updates since the last call, in order.
    mutating func takeReports() -> [RuntimeReport] {
        defer { reports.removeAll(keepingCapacity: true) }
        return reports
    }

    /// The owners, handed over for closing at shutdown: the machine owns no partition afterwards.
    mutating func releaseOwners() -> [PartitionOwner] {
        defer { assignment.owners.removeAll() }
        return assignment.sortedOwners
    }

    /// Whether the machine finished (cleanly or not).
    var hasEnded: Bool { ending != nil }

    // MARK: - The agenda

    /// Puts steps first on the agenda, in the order given.
    mutating func push(_ steps: Work...) { agenda.append(contentsOf: steps.reversed()) }
    mutating func push(_ steps: [Work]) { agenda.append(contentsOf: steps.reversed()) }

    /// The steps that commit everything folded so far and wait for it (hand-over, shutdown).
    static let commitEverything: [Work] = [.awaitOutcome, .sealIfDue(force: true), .awaitOutcome]

    /// Ends the machine: every later call returns `action`.
    mutating func end(with action: RuntimeAction) {
        ending = action
        agenda.removeAll()
    }

    private mutating func startRound() {
        guard !stopRequested else {
            // Fold what was fetched, so a graceful stop leaves nothing for the next owner to redo.
            push([.perform(.fold(assignment.sortedOwners, drain: true))] + Self.commitEverything
                + [.writeSnapshots(only: nil), .finish])
            stopRequested = false
            return
        }
        push(.poll, .rebalance, .reportOwnedPartitions, .retrySeeks, .retryRestores, .takeFixes, .pollCommands, .pollGeofences,
             .takeOutcome, .fold, .measureCaughtUp, .backpressure, .sealIfDue(force: false), .sendEarly,
             .rotateSnapshots, .checkLag)
    }

    /// Carries out a step: returns its action, or nil when it decided from the state alone.
    private mutating func run(_ work: Work) -> RuntimeAction? {
        switch work {
        case .poll:
            assignment.pollRound += 1
            assignment.soughtSincePoll.removeAll()
            return .poll
        case .rebalance: return nil  // the events came with the poll (`tookPoll`)
        case .reportOwnedPartitions:
            // Compared with what was last reported: a metrics snapshot copies every counter, and this runs every poll.
            let owned = assignment.owners.count
            if owned != upkeep.reportedOwnedPartitions {
                upkeep.reportedOwnedPartitions = owned
                metrics { $0.ownedPartitions = owned }
            }
            return nil
        case .retrySeeks:
            retrySeeks()
            return nil
        case .takeFixes:
            takeFixes()
            return nil
        case .pollCommands:
            guard !assignment.owners.isEmpty else { return nil }
            push(.confirmEnds)
            return .pollCommands
        case .confirmEnds: return confirmEnds()
        case .pollGeofences: return .pollGeofences
        case .takeOutcome: return pipeline.inFlight ? .takeTransactionOutcome : nil
        case .fold: return .fold(assignment.sortedOwners, drain: false)
        case .measureCaughtUp:
            pipeline.caughtUp = assignment.polledCount < options.maxPollRecords
                && !assignment.owners.values.contains { $0.pendingCount > 0 }
            return nil
        case .backpressure:
            applyBackpressure()
            return nil
        case let .sealIfDue(force):
            sealIfDue(force: force)
            return nil
        case let .sealAfterWaiting(started): return sealAfterWaiting(started: started)
        case let .seal(started): return seal(started: started)
        case .sendEarly: return options.sendOutputsEarly ? .checkProducer : nil
        case .rotateSnapshots: return assignment.owners.isEmpty ? nil : .checkSnapshotWriter
        case .checkLag: return now.monotonic - upkeep.lastLagCheck > 5 ? updateLag() : nil
        case let .perform(action): return action
        case .awaitOutcome: return pipeline.inFlight ? .awaitTransactionOutcome : nil
        case .discardOpen: return .discardOpenTransaction
        case let .retire(partitions):
            let retired = retire(partitions)
            return retired.isEmpty ? nil : .retire(retired)
        case .rebuildOwned:
            rebuildOwnedPartitions()
            return nil
        case let .restore(partitions, then, retry):
            guard !partitions.isEmpty else { return nil }
            assignment.restoring = (then, retry)
            return .checkStable(partitions)
        case let .restoreNow(partitions, then, retry, committed):
            guard !partitions.isEmpty else { return nil }
            assignment.restoring = (then, retry)
            switch then {
            case .rebuilt: push(partitions.map { .seek($0) })
            case .assigned: push(.tookPartitions(partitions, seekingAll: retry))
            }
            return .restore(partitions, committed: committed)
        case .retryRestores:
            retryRestores()
            return nil
        case let .forget(partitions):
            forget(partitions)
            return nil
        case let .handleRevoked(partitions):
            handleRevoked(partitions)
            return nil
        case let .handleLost(partitions):
            handleLost(partitions)
            return nil
        case let .seek(partition):
            guard let owner = assignment.owners[partition] else { return nil }
            return .seek(owner)
        case let .reassign(partitions):
            reassign(partitions)
            return nil
        case let .tookPartitions(partitions, seekingAll):
            tookPartitions(partitions, seekingAll: seekingAll)
            return nil
        case let .writeSnapshots(only): return writeSnapshots(only: only)
        case .writeCommittedImages: return writeCommittedImages()
        case .publishCounters:
            publishCounters()
            return nil
        case let .log(line):
            log(line)
            return nil
        case let .lost(partitions):
            metrics {
                $0.partitionsLost += partitions.count
                $0.groupLost = true
            }
            log("lost partitions \(partitions.sorted()) (session expired or fenced): dropped without committing")
            return nil
        case .finish:
            end(with: .finished)
            return .finished
        }
    }

    // MARK: - Reports

    mutating func log(_ line: String) { reports.append(.log(line)) }
    mutating func metrics(_ update: @escaping (inout RuntimeMetrics.Values) -> Void) { reports.append(.metrics(update)) }
    mutating func publish(_ counters: PublishedCounters) { reports.append(.counters(counters)) }
}
