import Codec
import Domain
import Foundation
import KafkaIO

/// The transactional producer and the jobs the driver hands it (``TransactionSteps``): it commits
/// transactions while the fold goes on, and reports how each ended.
///
/// One transaction in flight, one being folded: a producer has one open transaction, and the next
/// one's outputs are only sent after this one committed, so the broker sees the transactions of an
/// instance strictly one after the other, each with the state and offsets of exactly its inputs.
///
/// Between two commits the next transaction is open, and outputs folded meanwhile may be sent into
/// it early (`sendEarly`) instead of at its seal: the producer's work and the broker's
/// acknowledgements then overlap the fold, and the commit after the seal has less left to do. They
/// belong to that transaction like the outputs sent at its seal: committed with its changelog and
/// offsets, or aborted with them (`discardOpen` when the work they came from is dropped).
///
/// Threaded, a thread of its own makes the calls one after the other. Stepped (the simulation), nothing
/// happens until `runNextCall` makes the next one, on the caller's thread.
final class TransactionCommitter: @unchecked Sendable {
    // Unchecked: `sink` is used by the thread making the calls only (the committer thread, or the
    // simulation's); everything else is guarded by `condition`.
    private let broker: any Broker
    private let configuration: KafkaConfiguration
    private let transactionalId: String
    private let topics: Topics
    private let clock: any Clock
    private let log: @Sendable (String) -> Void
    private var sink: any TransactionalSink
    /// The largest record (key and value) the producer may send.
    let maximumRecordBytes: Int

    private let condition = NSCondition()
    private var steps: TransactionSteps
    /// Whether a sealed transaction was handed over and its outcome not yet taken.
    private var inFlight = false
    /// Early batches given and not yet sent to the producer.
    private var earlyQueued = 0
    /// Whether a discard was asked and has not yet run, and how it ended.
    private var discardPending = false
    private var discarded: CommitOutcome?
    private var finished: (receipt: TransactionReceipt, outcome: CommitOutcome)?
    private var stopping = false
    private var exited = false
    /// Told of every transaction the broker committed, as soon as its commit call returned (the simulation's
    /// probe: a crash may come before the driver hears of it). Set before the first job.
    var onCommitted: ((TransactionReceipt) -> Void)?

    /// Creates the producer and registers its transactional id (fencing an older instance's).
    /// - Parameter threaded: false for the simulation, which makes each call with `runNextCall`.
    init(broker: any Broker, configuration: KafkaConfiguration, transactionalId: String, topics: Topics,
         clock: any Clock, log: @escaping @Sendable (String) -> Void, threaded: Bool = true) throws
    {
        self.broker = broker
        self.configuration = configuration
        self.transactionalId = transactionalId
        self.topics = topics
        self.clock = clock
        self.log = log
        steps = TransactionSteps(topics: topics)
        // librdkafka's message.max.bytes (default 1,000,000) less room for the record's framing.
        maximumRecordBytes = configuration.maximumMessageBytes - 512
        sink = try broker.sink(configuration: configuration, transactionalId: transactionalId)
        try sink.initTransactions(timeout: .seconds(60))
        guard threaded else {
            exited = true
            return
        }
        let thread = Thread { [self] in serve() }
        thread.name = "tripstream-commit"
        thread.start()
    }

    /// Whether a transaction is committing (or its outcome not yet taken).
    var isBusy: Bool {
        condition.lock()
        defer { condition.unlock() }
        return inFlight
    }

    /// Hands a transaction over; the caller makes sure none is in flight.
    func submit(_ transaction: SealedTransaction) {
        condition.lock()
        precondition(!inFlight, "one transaction in flight at a time")
        steps.enqueue(.commit(transaction))
        inFlight = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether a job waits or is under way: a call to make (stepped).
    var hasWork: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !steps.isIdle
    }

    /// The call the job under way makes next, by name (nil: none under way).
    var callUnderWay: String? {
        condition.lock()
        defer { condition.unlock() }
        return steps.callUnderWay
    }

    /// Jobs handed over and not yet done.
    var queuedJobs: Int {
        condition.lock()
        defer { condition.unlock() }
        return steps.queuedJobs
    }

    /// Whether outputs may be sent early now: no transaction is committing (its outputs would join it)
    /// and the last early batch reached the producer (which bounds what waits here to one batch).
    var acceptsEarly: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !inFlight && earlyQueued == 0
    }

    /// Sends outputs into the open transaction (beginning it if needed); the caller checked
    /// `acceptsEarly`. A failure shows at the next commit, which then aborts.
    func sendEarly(_ outputs: [OutputBatch]) {
        condition.lock()
        precondition(!inFlight, "early outputs belong to the next transaction, not to the one committing")
        steps.enqueue(.early(outputs))
        earlyQueued += 1
        condition.broadcast()
        condition.unlock()
    }

    /// Asks for the open transaction to be aborted, dropping the outputs sent into it early: for when
    /// the work they came from is dropped without a commit (partitions lost). `takeDiscarded` says
    /// when that is done.
    func requestDiscard() {
        condition.lock()
        precondition(!inFlight, "a transaction in flight ends first")
        steps.enqueue(.discard)
        discardPending = true
        condition.broadcast()
        condition.unlock()
    }

    /// How the discard asked ended: nil while it runs; `.some(nil)` if no transaction was open,
    /// `.aborted`, or `.fatal` if its producer could neither abort nor be replaced.
    func takeDiscarded() -> CommitOutcome?? {
        condition.lock()
        defer { condition.unlock() }
        guard !discardPending else { return nil }
        defer { discarded = nil }
        return .some(discarded)
    }

    /// Waits until the discard asked ended (threaded only).
    func awaitDiscarded() -> CommitOutcome? {
        condition.lock()
        while discardPending { condition.wait() }
        condition.unlock()
        return takeDiscarded() ?? nil
    }

    /// The outcome of the transaction in flight if it ended (nil: none in flight, or still committing).
    func takeOutcome() -> (receipt: TransactionReceipt, outcome: CommitOutcome)? {
        condition.lock()
        defer { condition.unlock() }
        return takeFinished()
    }

    /// Waits for the transaction in flight to end (nil: none was in flight). Threaded only.
    func awaitOutcome() -> (receipt: TransactionReceipt, outcome: CommitOutcome)? {
        condition.lock()
        defer { condition.unlock() }
        while inFlight, finished == nil { condition.wait() }
        return takeFinished()
    }

    private func takeFinished() -> (receipt: TransactionReceipt, outcome: CommitOutcome)? {
        guard let result = finished else { return nil }
        finished = nil
        inFlight = false
        return result
    }

    /// Ends the thread (after the transaction in flight) and flushes what the producer holds.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !exited { condition.wait() }
        condition.unlock()
        _ = try? sink.flush(timeout: .seconds(10))
    }

    private func serve() {
        condition.lock()
        while true {
            while steps.isIdle, !stopping { condition.wait() }
            guard !steps.isIdle else { break }
            condition.unlock()
            runNextCall()
            condition.lock()
        }
        exited = true
        condition.broadcast()
        condition.unlock()
    }

    /// Makes the producer's next call and records how it went. - Returns: false when there was nothing to do.
    @discardableResult
    func runNextCall() -> Bool {
        condition.lock()
        let next = steps.next(now: clock.monotonic())
        condition.unlock()
        switch next {
        case nil: return false
        case let .finished(job)?: report(job, logs: [])
        case let .call(call)?:
            let result = make(call)
            condition.lock()
            let job = steps.record(result, now: clock.monotonic(), wall: clock.now())
            let logs = steps.takeLogs()
            condition.unlock()
            report(job, logs: logs)
        }
        return true
    }

    private func report(_ job: TransactionSteps.Finished?, logs: [String]) {
        for line in logs { log(line) }
        guard let job else { return }
        condition.lock()
        switch job {
        case .early: earlyQueued -= 1
        case let .transaction(receipt, outcome):
            finished = (receipt, outcome)
            if case .committed = outcome { onCommitted?(receipt) }
        case let .discarded(outcome):
            discarded = outcome
            discardPending = false
        }
        condition.broadcast()
        condition.unlock()
    }

    // MARK: - Calls

    private func make(_ call: TransactionSteps.Call) -> TransactionSteps.CallResult {
        do {
            switch call {
            case .begin: try sink.begin()
            case let .send(outputs):
                var oversized = 0
                for batch in outputs { try produce(batch, oversized: &oversized) }
                return .sent(oversized: oversized)
            case let .sendChangelog(partitions):
                for batch in partitions {
                    for record in batch.changelog {
                        try sink.produce(topic: topics.stateChangelog, partition: batch.partition, key: record.key,
                                         value: record.value)
                    }
                }
            case .flush: return .flushed(try sink.flush(timeout: .seconds(60)))
            case let .sendOffsets(offsets, membership):
                try sink.sendOffsets(offsets, membership: membership, timeout: .seconds(30))
            case .commit: try sink.commit(timeout: .seconds(60))
            case .abort: try sink.abort(timeout: .seconds(30))
            case .replaceProducer:
                sink = try broker.sink(configuration: configuration, transactionalId: transactionalId)
                try sink.initTransactions(timeout: .seconds(60))
            case let .pause(seconds): clock.sleep(seconds: seconds)
            }
            return .done
        } catch {
            return .failed(error)
        }
    }

    private func produce(_ output: OutputBatch, oversized: inout Int) throws {
        try produce(output.events, to: topics.events, oversized: &oversized)
        try produce(output.eta, to: topics.eta, oversized: &oversized)
        try produce(output.deadLetters, to: topics.deadLetters, oversized: &oversized)
        try produce(output.users, to: topics.users, oversized: &oversized)
        try produce(output.tripSummaries, to: topics.tripSummaries, oversized: &oversized)
    }

    private func produce(_ records: RecordBuffer, to topic: String, oversized: inout Int) throws {
        let limit = maximumRecordBytes
        try records.forEach { key, value in
            let key = key.isEmpty ? nil : key
            guard value.count + (key?.count ?? 0) <= limit else {
                // The broker would refuse it, and the transaction with it, every time it is retried:
                // publish a dead letter in its place (with its first bytes) and count it.
                let letter = DeadLetter(
                    reason: .outputTooLarge,
                    detail: "\(topic) record of \(value.count) bytes is over the \(limit)-byte limit (message.max.bytes); not published",
                    topic: topic, partition: -1, offset: -1, key: key.map { Array($0) }, value: Array(value),
                    receivedAt: clock.now()).capped()
                var encoded: [UInt8] = []
                DeadLetterEncoder.encode(letter, into: &encoded)
                try sink.produce(topic: topics.deadLetters, key: key.map { Array($0) }, value: encoded)
                oversized += 1
                return
            }
            try sink.produce(topic: topic, partition: nil, key: key, value: value)
        }
    }
}

/// What the driver needs of a transaction once it ended (its outputs are gone by then).
struct TransactionReceipt: Sendable {
    struct Part: Sendable {
        let partition: Int32
        let owner: ObjectIdentifier
        let historyGeneration: UInt64
        let inputs: Int
        let inputTimestamps: [Int64]
        /// Next offsets of fixes and commands once committed; nil before the partition folded anything.
        let offsets: (locations: Int64, commands: Int64)?
        let checkpoint: PartitionCheckpoint
        let image: PartitionFold?
    }

    let parts: [Part]
    let sealedAt: Double
    /// The geofence table's dead letters it carried: no input is read again after an abort to
    /// yield them anew, so the driver puts them in the next transaction.
    let shared: OutputBatch

    init(_ transaction: SealedTransaction) {
        parts = transaction.partitions.map {
            Part(partition: $0.partition, owner: $0.owner, historyGeneration: $0.historyGeneration,
                 inputs: $0.inputs, inputTimestamps: $0.inputTimestamps, offsets: $0.offsets,
                 checkpoint: $0.checkpoint, image: $0.image)
        }
        sealedAt = transaction.sealedAt
        shared = transaction.shared
    }
}

extension KafkaError {
    /// Whether a newer producer with this transactional id fenced this one: the instance must stop,
    /// not replace its producer (which would fence the newer one in turn).
    var fencesThisInstance: Bool { code == .producerFenced || code == .fenced || code == .invalidProducerEpoch }
}
