import Domain
import KafkaIO

/// The transactional producer's side of the commit pipeline as a value: the jobs the driver handed
/// over (early outputs, sealed transactions, discards), in order, each carried out as a sequence of
/// broker calls it returns one at a time (begin, send, flush, send offsets, commit, abort). Whoever
/// holds the producer makes each call and reports how it went: the committer thread, one call after
/// the other, or the simulation, which interleaves them with everything else and crashes between them.
///
/// One transaction [begin; outputs; flush; changelog + checkpoints; flush; offsets; commit]: outputs
/// are durable before the changelog record that covers them, so even a broker that cannot abort
/// (librdkafka's mock) can only see outputs repeated after a crash, never lost.
struct TransactionSteps {
    enum Job {
        /// Outputs sent into the open transaction before its seal (beginning it if needed).
        case early([OutputBatch])
        case commit(SealedTransaction)
        /// Abort the open transaction, dropping what was sent into it early.
        case discard
    }

    /// One call to the transactional producer.
    enum Call {
        case begin
        /// Produces outputs (records over the size limit become dead letters).
        case send([OutputBatch])
        /// Produces the partitions' changelog records, checkpoints last.
        case sendChangelog([PartitionBatch])
        /// Waits until every record produced is acknowledged or failed.
        case flush
        case sendOffsets([TopicPartitionOffset], GroupMembership)
        case commit
        case abort
        /// Creates a new producer with the same transactional id (fencing the old one, whose open
        /// transaction the coordinator aborts) and initializes its transactions.
        case replaceProducer
        /// Waits before repeating a call the broker said may succeed again.
        case pause(seconds: Double)
    }

    /// How a call went.
    enum CallResult {
        case done
        /// `send`: how many records were replaced by dead letters for their size.
        case sent(oversized: Int)
        case flushed(DeliveryReport)
        case failed(any Error)
    }

    /// A job that ended.
    enum Finished {
        case early
        case transaction(TransactionReceipt, CommitOutcome)
        /// The discard's abort outcome, nil when no transaction was open.
        case discarded(CommitOutcome?)
    }

    /// What to do next: a call to make, or a job that ended without one.
    enum Next {
        case call(Call)
        case finished(Finished)
    }

    let topics: Topics
    private var jobs: [Job] = []
    private var nextJob = 0
    private var current: Running?
    /// Whether a transaction is begun, the first error of an early send (the transaction then aborts at
    /// its seal), and early records replaced by dead letters.
    private var isOpen = false
    private var earlyFailure: (any Error)?
    private var earlyOversized = 0
    /// What to log, taken by whoever carries out the calls.
    private var logs: [String] = []

    /// A job being carried out: where it stands.
    private struct Running {
        var job: Job
        var stage: Stage
        var started: Double
        var oversized = 0
        var retries = 0
        /// The retried call's deadline (30 s after its first attempt) and next pause.
        var retryDeadline = 0.0
        var retryPause = 0.05
        /// The error that made the job abort, while the abort (or the producer's replacement) runs.
        var failure: (any Error)?

        /// Moves on to a call that is repeated while the broker says it may succeed again.
        mutating func beginRetries(_ next: Stage, now: Double) {
            stage = next
            retryDeadline = now + 30
            retryPause = 0.05
        }
    }

    private indirect enum Stage: Equatable {
        case begin, sendOutputs, flushOutputs, sendChangelog, flushChangelog, sendOffsets, commit
        /// Sleeping before repeating the retried stage.
        case pausing(then: Stage)
        case sendEarly
        case abort, replaceProducer

        /// Its name, the same in every run: a nested enum's default description can name its context by
        /// address (`(unknown context at $…)`), which made one seed's traces differ between runs.
        var name: String {
            switch self {
            case .begin: "begin"
            case .sendOutputs: "sendOutputs"
            case .flushOutputs: "flushOutputs"
            case .sendChangelog: "sendChangelog"
            case .flushChangelog: "flushChangelog"
            case .sendOffsets: "sendOffsets"
            case .commit: "commit"
            case let .pausing(then: stage): "pausing(then: \(stage.name))"
            case .sendEarly: "sendEarly"
            case .abort: "abort"
            case .replaceProducer: "replaceProducer"
            }
        }
    }

    init(topics: Topics) { self.topics = topics }

    /// Jobs waiting or under way.
    var queuedJobs: Int { jobs.count - nextJob + (current == nil ? 0 : 1) }

    /// Whether no job is being carried out or waiting.
    var isIdle: Bool { current == nil && nextJob == jobs.count }

    /// The call to be made next in the job under way, by name (where the simulation's crashes strike).
    var callUnderWay: String? {
        guard let current else { return nil }
        let job = switch current.job {
        case .early: "early send"
        case .commit: "commit"
        case .discard: "discard"
        }
        return "\(job): \(current.stage.name)"
    }

    mutating func enqueue(_ job: Job) { jobs.append(job) }

    mutating func takeLogs() -> [String] {
        defer { logs.removeAll() }
        return logs
    }

    /// The next call to make (or a job that ended without one), nil when there is no job.
    /// `now`: monotonic seconds.
    mutating func next(now: Double) -> Next? {
        if let current { return .call(call(for: current)) }
        guard nextJob < jobs.count else { return nil }
        let job = jobs[nextJob]
        nextJob += 1
        if nextJob == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            nextJob = 0
        }
        if let finished = start(job, now: now) { return .finished(finished) }
        return .call(call(for: current!))
    }

    private mutating func start(_ job: Job, now: Double) -> Finished? {
        switch job {
        case .early:
            guard earlyFailure == nil else { return .early }  // the transaction aborts at its seal anyway
            current = Running(job: job, stage: isOpen ? .sendEarly : .begin, started: now)
        case .commit:
            current = Running(job: job, stage: isOpen ? .sendOutputs : .begin, started: now, oversized: earlyOversized)
            if let earlyFailure { return fail(earlyFailure) }
        case .discard:
            guard isOpen else { return .discarded(nil) }
            current = Running(job: job, stage: .abort, started: now)
            return fail(RuntimeError.earlyOutputsDropped)
        }
        return nil
    }

    private func call(for running: Running) -> Call {
        switch running.stage {
        case .begin: return .begin
        case .sendEarly:
            guard case let .early(outputs) = running.job else { preconditionFailure("early stage of another job") }
            return .send(outputs)
        case .sendOutputs:
            guard case let .commit(transaction) = running.job else { preconditionFailure("commit stage of another job") }
            return .send([transaction.shared] + transaction.partitions.map(\.output))
        case .flushOutputs, .flushChangelog: return .flush
        case .sendChangelog:
            guard case let .commit(transaction) = running.job else { preconditionFailure("commit stage of another job") }
            return .sendChangelog(transaction.partitions)
        case .sendOffsets:
            guard case let .commit(transaction) = running.job else { preconditionFailure("commit stage of another job") }
            return .sendOffsets(offsets(of: transaction), transaction.membership)
        case .commit: return .commit
        case .pausing: return .pause(seconds: running.retryPause)
        case .abort: return .abort
        case .replaceProducer: return .replaceProducer
        }
    }

    /// Records how the call from `next` went. - Returns: the job, if it ended.
    /// - Parameters: `now`: monotonic seconds; `wall`: ms since 1970 (when a commit is visible).
    mutating func record(_ result: CallResult, now: Double, wall: UnixMillis) -> Finished? {
        guard var running = current else { preconditionFailure("a result without a call") }
        let stage = running.stage
        switch (stage, result) {
        case let (.pausing(then: retried), _):
            running.retryPause = min(running.retryPause * 2, 1)
            running.stage = retried
        case (.abort, .failed(let abortError)):
            // A producer that cannot abort cannot begin again: replace it. A new one with the same
            // transactional id fences the old and has the coordinator abort what it left open.
            logs.append("abort failed (\(abortError)); replacing the transactional producer")
            running.stage = .replaceProducer
        case (.abort, _), (.replaceProducer, .done), (.replaceProducer, .sent), (.replaceProducer, .flushed):
            let reason = running.failure.map { "\($0)" } ?? "aborted"
            return finish(.aborted(reason: reason, seconds: now - running.started))
        case (.replaceProducer, .failed(let replaceError)):
            let error = replaceError as? KafkaError
                ?? KafkaError(code: .fatal, message: "replacing the producer: \(replaceError)", isFatal: true)
            return finish(.fatal(error))
        case (.begin, .failed(let error)) where isEarly(running), (.sendEarly, .failed(let error)):
            logs.append("early outputs not sent (\(error)); their transaction aborts at its seal")
            earlyFailure = error
            current = nil
            return .early
        case (.begin, .failed(let error)):
            current = running
            return fail(error)
        case (.begin, _):
            isOpen = true
            running.stage = isEarly(running) ? .sendEarly : .sendOutputs
        case (.sendEarly, .sent(let oversized)):
            earlyOversized += oversized
            current = nil
            return .early
        case (.sendOutputs, .sent(let oversized)):
            running.oversized += oversized
            running.stage = .flushOutputs
        case (.flushOutputs, .flushed(let report)), (.flushChangelog, .flushed(let report)):
            guard report.allDelivered else {
                current = running
                return fail(RuntimeError.recordsNotDelivered(
                    count: report.failed, what: stage == .flushOutputs ? "outputs" : "changelog",
                    firstError: report.firstError.map { "\($0)" }))
            }
            if stage == .flushOutputs {
                running.stage = .sendChangelog
            } else if case let .commit(transaction) = running.job, !offsets(of: transaction).isEmpty {
                running.beginRetries(.sendOffsets, now: now)
            } else {
                running.beginRetries(.commit, now: now)
            }
        case (.sendChangelog, .done):
            running.stage = .flushChangelog
        case (.sendOffsets, .done):
            running.beginRetries(.commit, now: now)
        case (.commit, .done):
            return finish(.committed(seconds: now - running.started, at: wall, oversized: running.oversized,
                                     retries: running.retries))
        case (_, .failed(let error)):
            return failOrRetry(error, running: running, now: now)
        default:
            preconditionFailure("result \(result) does not answer \(stage)")
        }
        current = running
        return nil
    }

    private func isEarly(_ running: Running) -> Bool {
        if case .early = running.job { true } else { false }
    }

    /// Repeats a call the broker says may succeed again (coordinator moving, request timed out), with
    /// a growing pause, for up to 30 s; fails the job on any other error.
    private mutating func failOrRetry(_ error: any Error, running: Running, now: Double) -> Finished? {
        var running = running
        if let kafka = error as? KafkaError, kafka.isRetriable, !kafka.isFatal, !kafka.isTxnRequiresAbort,
            running.stage == .sendOffsets || running.stage == .commit, now + running.retryPause < running.retryDeadline
        {
            running.retries += 1
            logs.append("transaction: \(kafka.message); retrying")
            running.stage = .pausing(then: running.stage)
            current = running
            return nil
        }
        current = running
        return fail(error)
    }

    /// Ends the job as fatal when a newer instance fenced this one (it must stop, not replace its
    /// producer, which would fence the newer one in turn); otherwise aborts, or replaces the producer
    /// if it cannot abort (fatal errors to this producer included, such as an idempotence sequence
    /// lost after a timed-out request).
    private mutating func fail(_ error: any Error) -> Finished? {
        if let kafka = error as? KafkaError, kafka.isFatal, kafka.fencesThisInstance { return finish(.fatal(kafka)) }
        logs.append("transaction failed, aborting: \(error)")
        current!.failure = error
        current!.stage = .abort
        return nil
    }

    private mutating func finish(_ outcome: CommitOutcome) -> Finished {
        let job = current!.job
        current = nil
        // Committed, aborted or discarded: the next transaction starts afresh.
        isOpen = false
        earlyFailure = nil
        earlyOversized = 0
        switch job {
        case let .commit(transaction): return .transaction(TransactionReceipt(transaction), outcome)
        case .discard: return .discarded(outcome)
        case .early: preconditionFailure("an early send never ends a transaction")
        }
    }

    func offsets(of transaction: SealedTransaction) -> [TopicPartitionOffset] {
        var offsets: [TopicPartitionOffset] = []
        for batch in transaction.partitions {
            guard let next = batch.offsets else { continue }
            offsets.append(TopicPartitionOffset(topic: topics.locations, partition: batch.partition,
                                                offset: next.locations))
            offsets.append(TopicPartitionOffset(topic: topics.tripCommands, partition: batch.partition,
                                                offset: next.commands))
        }
        return offsets
    }
}
