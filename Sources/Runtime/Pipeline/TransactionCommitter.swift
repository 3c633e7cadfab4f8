import Codec
import Domain
import Foundation
import KafkaIO

/// The thread that commits transactions while the fold goes on: it owns the transactional
/// producer, takes one sealed transaction at a time and reports how it ended.
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
final class TransactionCommitter: @unchecked Sendable {
    // Unchecked: `sink`, `isOpen`, `earlyFailure` and `earlyOversized` are used by the committer thread
    // only; the hand-over state (`jobs`, `inFlight`, `finished`, ...) is guarded by `condition`.
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
    private enum Job {
        case early([OutputBatch])
        case commit(SealedTransaction)
        case discard
    }
    /// Jobs in the order given: early outputs always reach the producer before the seal that follows them.
    private var jobs: [Job] = []
    private var inFlight = false
    /// Early batches given and not yet sent to the producer.
    private var earlyQueued = 0
    /// Whether a discard was asked and has not yet run, and how the last one failed.
    private var discardPending = false
    private var discarded: CommitOutcome?
    /// Committer thread only: whether a transaction is begun, the first error of an early send (the
    /// transaction is then aborted at its seal), and early records replaced by dead letters.
    private var isOpen = false
    private var earlyFailure: (any Error)?
    private var earlyOversized = 0
    private var finished: (receipt: TransactionReceipt, outcome: CommitOutcome)?
    private var stopping = false
    private var exited = false

    /// Creates the producer and registers its transactional id (fencing an older instance's).
    init(broker: any Broker, configuration: KafkaConfiguration, transactionalId: String, topics: Topics,
         clock: any Clock, log: @escaping @Sendable (String) -> Void) throws
    {
        self.broker = broker
        self.configuration = configuration
        self.transactionalId = transactionalId
        self.topics = topics
        self.clock = clock
        self.log = log
        // librdkafka's message.max.bytes (default 1,000,000) less room for the record's framing.
        maximumRecordBytes = configuration.maximumMessageBytes - 512
        sink = try broker.sink(configuration: configuration, transactionalId: transactionalId)
        try sink.initTransactions(timeout: .seconds(60))
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
        jobs.append(.commit(transaction))
        inFlight = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether outputs may be sent early now: no transaction is committing (its outputs would join it)
    /// and the last early batch reached the producer (which bounds what waits here to one batch).
    var acceptsEarly: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !inFlight && earlyQueued == 0
    }

    /// Sends outputs into the open transaction (beginning it if needed) on the committer thread; the
    /// caller checked `acceptsEarly`. A failure shows at the next commit, which then aborts.
    func sendEarly(_ outputs: [OutputBatch]) {
        condition.lock()
        precondition(!inFlight, "early outputs belong to the next transaction, not to the one committing")
        jobs.append(.early(outputs))
        earlyQueued += 1
        condition.broadcast()
        condition.unlock()
    }

    /// Aborts the open transaction, dropping the outputs sent into it early, and waits until that is
    /// done: for when the work they came from is dropped without a commit (partitions lost).
    /// - Returns: `.aborted` if a transaction was open, `.fatal` if its producer could neither abort
    ///   nor be replaced (the instance must stop), nil if none was open.
    func discardOpen() -> CommitOutcome? {
        condition.lock()
        defer { condition.unlock() }
        precondition(!inFlight, "a transaction in flight ends first")
        jobs.append(.discard)
        discardPending = true
        condition.broadcast()
        while discardPending { condition.wait() }
        return discarded
    }

    /// The outcome of the transaction in flight if it ended (nil: none in flight, or still committing).
    func takeOutcome() -> (receipt: TransactionReceipt, outcome: CommitOutcome)? {
        condition.lock()
        defer { condition.unlock() }
        return takeFinished()
    }

    /// Waits for the transaction in flight to end (nil: none was in flight).
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
        while true {
            condition.lock()
            while jobs.isEmpty, !stopping { condition.wait() }
            guard !jobs.isEmpty else {
                exited = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()

            switch job {
            case let .early(outputs):
                sendEarlyOutputs(outputs)
                condition.lock()
                earlyQueued -= 1
                condition.broadcast()
                condition.unlock()
            case let .commit(transaction):
                let outcome = commit(transaction)
                condition.lock()
                finished = (TransactionReceipt(transaction), outcome)
                condition.broadcast()
                condition.unlock()
            case .discard:
                let outcome = isOpen
                    ? abort(after: RuntimeError.earlyOutputsDropped, started: clock.monotonic())
                    : nil
                forgetOpenTransaction()
                condition.lock()
                discarded = outcome
                discardPending = false
                condition.broadcast()
                condition.unlock()
            }
        }
    }

    /// Committed, aborted or discarded: the next transaction starts afresh.
    private func forgetOpenTransaction() {
        isOpen = false
        earlyFailure = nil
        earlyOversized = 0
    }

    private func beginIfNeeded() throws {
        guard !isOpen else { return }
        try sink.begin()
        isOpen = true
    }

    private func sendEarlyOutputs(_ outputs: [OutputBatch]) {
        guard earlyFailure == nil else { return }  // the transaction aborts at its seal anyway
        do {
            try beginIfNeeded()
            for batch in outputs { try produce(batch, oversized: &earlyOversized) }
        } catch {
            log("early outputs not sent (\(error)); their transaction aborts at its seal")
            earlyFailure = error
        }
    }

    // MARK: - One transaction

    private func commit(_ transaction: SealedTransaction) -> CommitOutcome {
        let started = clock.monotonic()
        var oversized = earlyOversized
        var retries = 0
        defer { forgetOpenTransaction() }
        do {
            if let earlyFailure { throw earlyFailure }
            try beginIfNeeded()
            // Outputs first, durable before the state that covers them: a broker that cannot abort
            // (librdkafka's mock) may then repeat outputs after a crash, never lose them.
            try produce(transaction.shared, oversized: &oversized)
            for batch in transaction.partitions { try produce(batch.output, oversized: &oversized) }
            try confirmDeliveries("outputs")
            for batch in transaction.partitions {
                for record in batch.changelog {
                    try sink.produce(topic: topics.stateChangelog, partition: batch.partition, key: record.key,
                                     value: record.value)
                }
            }
            try confirmDeliveries("changelog")
            var offsets: [TopicPartitionOffset] = []
            for batch in transaction.partitions {
                guard let next = batch.offsets else { continue }
                offsets.append(TopicPartitionOffset(topic: topics.locations, partition: batch.partition,
                                                    offset: next.locations))
                offsets.append(TopicPartitionOffset(topic: topics.tripCommands, partition: batch.partition,
                                                    offset: next.commands))
            }
            if !offsets.isEmpty {
                try retrying(&retries) {
                    try sink.sendOffsets(offsets, membership: transaction.membership, timeout: .seconds(30))
                }
            }
            try retrying(&retries) { try sink.commit(timeout: .seconds(60)) }
            return .committed(seconds: clock.monotonic() - started, at: clock.now(), oversized: oversized, retries: retries)
        } catch let error as KafkaError where error.isFatal && error.fencesThisInstance {
            return .fatal(error)  // a newer instance took over: this one must stop
        } catch {
            // Any other error, fatal ones to this producer included (an idempotence sequence lost
            // after a timed-out request): abort, or replace the producer if it cannot abort.
            return abort(after: error, started: started)
        }
    }

    /// Repeats a call the broker says may succeed again (coordinator moving, request timed out),
    /// with a growing pause, for up to 30 s.
    private func retrying(_ retries: inout Int, _ call: () throws -> Void) throws {
        let deadline = clock.monotonic() + 30
        var pause: UInt32 = 50_000
        while true {
            do {
                return try call()
            } catch let error as KafkaError where error.isRetriable && !error.isFatal && !error.isTxnRequiresAbort {
                guard clock.monotonic() + Double(pause) / 1e6 < deadline else { throw error }
                retries += 1
                log("transaction: \(error.message); retrying")
                usleep(pause)
                pause = min(pause * 2, 1_000_000)
            }
        }
    }

    private func abort(after error: any Error, started: Double) -> CommitOutcome {
        log("transaction failed, aborting: \(error)")
        do {
            try sink.abort(timeout: .seconds(30))
        } catch let abortError {
            // A producer that cannot abort cannot begin again: replace it. A new one with the same
            // transactional id fences the old and has the coordinator abort what it left open.
            log("abort failed (\(abortError)); replacing the transactional producer")
            do {
                sink = try broker.sink(configuration: configuration, transactionalId: transactionalId)
                try sink.initTransactions(timeout: .seconds(60))
            } catch let replaceError as KafkaError {
                return .fatal(replaceError)
            } catch {
                return .fatal(KafkaError(code: .fatal, message: "replacing the producer: \(error)", isFatal: true))
            }
        }
        return .aborted(reason: "\(error)", seconds: clock.monotonic() - started)
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

    private func confirmDeliveries(_ what: String) throws {
        let report = try sink.flush(timeout: .seconds(60))
        guard report.allDelivered else {
            throw RuntimeError.recordsNotDelivered(count: report.failed, what: what, firstError: report.firstError.map { "\($0)" })
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
    }

    let parts: [Part]
    let sealedAt: Double
    /// The geofence table's dead letters it carried: no input is read again after an abort to
    /// yield them anew, so the driver puts them in the next transaction.
    let shared: OutputBatch

    init(_ transaction: SealedTransaction) {
        parts = transaction.partitions.map {
            Part(partition: $0.partition, owner: $0.owner, historyGeneration: $0.historyGeneration,
                 inputs: $0.inputs, inputTimestamps: $0.inputTimestamps, offsets: $0.offsets)
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
