import BrokerSimulation
import Domain
import Foundation
import KafkaIO
import Runtime
import Testing

/// The pipelined runtime on a broker that really aborts, fences and rebalances when told: the
/// failure paths librdkafka's mock cannot reach. Each ends with what a read_committed consumer
/// upserting by `_id` must see: the fold of the same inputs, each event published once.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct PipelineFailureTests {
    func assertExactlyOnce(_ harness: FakeBrokerHarness, _ context: String) throws {
        let events = try harness.committedEvents()
        let expected = harness.expectedEvents()
        let actual = KafkaRuntimeHarness.upserted(events)
        #expect(expected.count > 50, "\(context): the scenario should produce events")
        let missing = expected.keys.filter { actual[$0] == nil }.count
        let extra = actual.keys.filter { expected[$0] == nil }.count
        let different = expected.keys.filter { actual[$0] != nil && actual[$0] != expected[$0] }.count
        #expect(missing == 0 && extra == 0 && different == 0,
                "\(context): of \(expected.count) events, \(missing) lost, \(extra) unexpected, \(different) different")
        #expect(KafkaRuntimeHarness.divergentRepeats(events, brokerAborts: true).isEmpty, "\(context): a repeated _id changed content")
        // Nor identical repeats: what an aborted transaction published is never read, and a partition
        // restored from its changelog knows the geofence table its users' histories were folded with,
        // so its next refold republishes nothing unchanged.
        var seen = Set<String>()
        let repeats = events.filter { !seen.insert("\($0.revision) \(KafkaRuntimeHarness.comparable($0))").inserted }
        #expect(repeats.isEmpty, "\(context): \(repeats.count) identical repeats, e.g. \(repeats.prefix(2).map(\.type))")
        // One trip summary per stopped trip, committed with it.
        var summaries: [String: Bool] = [:]
        for record in harness.broker.committedRecords(topic: harness.topics.tripSummaries) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(record.value ?? [])) as? [String: Any])
            let id = try #require(object["_id"] as? String)
            summaries[id] = (object["retracted"] as? Bool) != true
        }
        let stops = Set(actual.filter { $0.value.contains("\"type\":\"user.stopped_trip\"") }.keys)
        #expect(!stops.isEmpty || harness.commandCount == 0, "\(context): trips were stopped")
        #expect(Set(summaries.filter(\.value).keys) == stops, "\(context): trip summaries match the stopped trips")
    }

    @Test func anAbortInTheMiddleOfAPipelinedCommitLosesNothing() throws {
        let harness = try FakeBrokerHarness(seed: 21)
        let broker = harness.broker
        // The third commit waits until the driver polled (and folded) several more rounds, then fails
        // as an abortable error: the transaction in flight and the one being folded are both undone.
        broker.onCall(3, of: .commit) {
            let polls = broker.callCount(.poll)
            let deadline = Date().addingTimeInterval(10)
            while broker.callCount(.poll) < polls + 3, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
            broker.failNext(.commit, with: KafkaError(code: .unknown, message: "injected: abortable",
                                                      isTxnRequiresAbort: true))
        }
        let runtime = harness.start(instance: "a")
        #expect(harness.waitUntilCommitted([runtime]), "inputs not committed")
        #expect(runtime.halt())
        #expect(runtime.failure == nil, "\(String(describing: runtime.failure))")
        let values = runtime.metrics.snapshot
        #expect(values.transactionsAborted == 1)
        #expect(values.transactionsCommitted > 3)
        try assertExactlyOnce(harness, "abort during a pipelined commit")
    }

    @Test func aProducerFencedByANewerInstanceStopsAndTheNewerOneFinishes() throws {
        let harness = try FakeBrokerHarness(seed: 22)
        let first = harness.start(instance: "a")
        #expect(harness.wait { first.metrics.snapshot.transactionsCommitted >= 2 })
        let transactionalId = harness.options(instance: "a").transactionalId
        harness.broker.fence(transactionalId: transactionalId)
        #expect(first.done.wait(timeout: .now() + 30) == .success, "a fenced instance stops")
        let fenced = (first.failure as? KafkaError)?.code
        #expect(fenced == .producerFenced, "\(String(describing: first.failure))")
        #expect(first.metrics.snapshot.producerFenced, "tripstream_producer_fenced says so until the process exits")
        let committedByFirst = first.metrics.snapshot.inputsCommitted
        #expect(committedByFirst < harness.inputCount, "fenced before it finished")

        let second = harness.start(instance: "a")  // the same instance, restarted: it restores and goes on
        #expect(harness.wait(timeout: 90) {
            committedByFirst + second.metrics.snapshot.inputsCommitted >= harness.inputCount
        })
        #expect(second.halt())
        #expect(second.failure == nil, "\(String(describing: second.failure))")
        #expect(!second.metrics.snapshot.producerFenced)
        try assertExactlyOnce(harness, "fenced producer")
    }

    @Test func anUnavailableCoordinatorIsRetriedWithoutAborting() throws {
        let harness = try FakeBrokerHarness(seed: 23)
        harness.broker.coordinatorUnavailable(for: [.sendOffsets, .commit], times: 4)
        let runtime = harness.start(instance: "a")
        #expect(harness.waitUntilCommitted([runtime]))
        #expect(runtime.halt())
        #expect(runtime.failure == nil, "\(String(describing: runtime.failure))")
        let values = runtime.metrics.snapshot
        #expect(values.transactionRetries >= 4, "each refusal retried")
        #expect(values.transactionsAborted == 0, "a retriable error does not abort")
        try assertExactlyOnce(harness, "coordinator unavailable")
    }

    /// A producer made unusable by a fatal error that is not a fencing (librdkafka's idempotence
    /// losing a sequence after a timed-out request) is replaced, its transaction undone: the instance
    /// goes on instead of stopping.
    @Test func aProducerBrokenByAFatalErrorIsReplacedAndLosesNothing() throws {
        let harness = try FakeBrokerHarness(seed: 25)
        harness.broker.onNext(.commit) {
            harness.broker.failNext(.produce, with: KafkaError(
                code: .outOfOrderSequenceNumber, message: "injected: sequence desynchronization", isFatal: true))
        }
        let runtime = harness.start(instance: "a")
        #expect(harness.waitUntilCommitted([runtime]), "inputs not committed")
        #expect(runtime.halt())
        #expect(runtime.failure == nil, "\(String(describing: runtime.failure))")
        #expect(runtime.metrics.snapshot.transactionsAborted >= 1, "the broken producer's transaction was undone")
        #expect(runtime.logs.contains { $0.contains("replacing the transactional producer") })
        try assertExactlyOnce(harness, "fatal producer error")
    }

    /// The folded rest is committed before the hand-over. (The in-memory broker bumps the generation
    /// again once the revocation was seen, so a transaction sealed just before may be refused and
    /// aborted: that must lose nothing either.)
    @Test func aRevocationDuringACommitCommitsTheFoldedRestBeforeTheHandOver() throws {
        let harness = try FakeBrokerHarness(seed: 24)
        let broker = harness.broker
        let revoked = [harness.partition(0), harness.partition(1)]
        broker.onCall(2, of: .commit) { broker.revoke(revoked) }
        let runtime = harness.start(instance: "a")
        #expect(harness.wait { runtime.logs.contains { $0.contains("gave up partitions [0, 1]") } }, "the partitions were handed over")
        broker.assignAgain(revoked)
        #expect(harness.waitUntilCommitted([runtime]))
        #expect(runtime.halt())
        #expect(runtime.failure == nil, "\(String(describing: runtime.failure))")
        try assertExactlyOnce(harness, "revocation during a commit")
    }

    /// While the broker cannot say where the trip-commands streams end, fixes wait in their
    /// partitions' merges: those partitions are paused at the consumer once they hold
    /// `maxPendingInputs`, so fetched inputs stay bounded, and resumed once the broker answers again.
    @Test func partitionsWhoseInputsPileUpArePausedAndResumed() throws {
        // Fixes only: a fix head waits until the broker says the (empty) commands stream ends.
        let harness = try FakeBrokerHarness(seed: 27, commands: false)
        let broker = harness.broker
        broker.failNext(.endOffsets, with: KafkaError(code: .timedOut, message: "injected: no answer", isRetriable: true),
                        times: 1_000_000)
        let runtime = harness.start(instance: "a") { options in
            options.maxPendingInputs = 100
            options.maxPollRecords = 200
            options.mergeWait = 600_000  // never folded past the silent stream: only the broker's word
        }
        #expect(harness.wait { runtime.metrics.snapshot.pausedPartitions > 0 }, "a partition was paused")
        let pausedAtTheConsumer = broker.withState { state in state.members.values.contains { !$0.paused.isEmpty } }
        #expect(pausedAtTheConsumer, "the consumer stopped fetching it")
        #expect(runtime.metrics.snapshot.inputsCommitted < harness.inputCount, "inputs are held back meanwhile")
        broker.clearFailures(.endOffsets)
        #expect(harness.waitUntilCommitted([runtime]))
        #expect(harness.wait { runtime.metrics.snapshot.pausedPartitions == 0 }, "resumed once the inputs were folded")
        #expect(runtime.halt())
        #expect(runtime.failure == nil, "\(String(describing: runtime.failure))")
        #expect(runtime.metrics.snapshot.partitionPauses > 0)
        try assertExactlyOnce(harness, "backpressure")
    }

    /// The group drops the member's partition while the third transaction commits, with more
    /// folded behind it: that work is dropped, and the partition taken back is restored.
    @Test func partitionsLostDuringACommitAreDroppedRebuiltAndLoseNothing() throws {
        try losePartition(during: .commit, seed: 25)
    }

    /// The group moves on while the third transaction sends its offsets: they carry a stale
    /// generation and are refused, so that transaction aborts (a zombie cannot commit).
    @Test func partitionsLostWhileTheirOffsetsAreSentAbortTheZombieTransaction() throws {
        let runtime = try losePartition(during: .sendOffsets, seed: 26)
        #expect(runtime.metrics.snapshot.transactionsAborted >= 1, "the zombie's transaction was refused")
    }

    /// Outputs folded while no transaction commits go into the open one at once; the commit after
    /// the seal sends the rest. Off, everything goes at the seal. Either way: each event once.
    @Test(arguments: [true, false])
    func outputsSentEarlyAreCommittedWithTheirTransaction(early: Bool) throws {
        let harness = try FakeBrokerHarness(seed: 28)
        let runtime = harness.start(instance: "a") { $0.sendOutputsEarly = early }
        #expect(harness.waitUntilCommitted([runtime]))
        #expect(runtime.halt())
        #expect(runtime.failure == nil, "\(String(describing: runtime.failure))")
        let values = runtime.metrics.snapshot
        if early {
            #expect(values.outputsSentEarly > 0, "outputs went into the open transaction before its seal")
        } else {
            #expect(values.outputsSentEarly == 0)
        }
        #expect(values.transactionsAborted == 0)
        try assertExactlyOnce(harness, "outputs sent early: \(early)")
    }

    /// An early send that fails (here a record the producer refused to queue, which leaves the
    /// transaction itself usable) aborts its transaction at the seal: committing it would lose that
    /// output. Everything folded since the last commit is folded again.
    /// Whether a given transaction opens with an early send or at its seal is timing, so from the
    /// third transaction on the first record after each begin is refused until one was early.
    @Test func anEarlySendThatFailsAbortsItsTransactionAndLosesNothing() throws {
        let harness = try FakeBrokerHarness(seed: 29)
        let refusal = EarlySendRefusal(broker: harness.broker)
        harness.broker.onCall(2, of: .begin) { refusal.refuseAfterNextBegin(remaining: 20) }
        let runtime = harness.start(instance: "a") { $0.sendOutputsEarly = true }
        refusal.watch(runtime)
        #expect(harness.waitUntilCommitted([runtime]), "inputs not committed")
        #expect(runtime.halt())
        #expect(runtime.failure == nil, "\(String(describing: runtime.failure))")
        #expect(runtime.logs.contains { $0.contains("early outputs not sent") }, "the failure hit an early send")
        #expect(runtime.metrics.snapshot.transactionsAborted >= 1)
        try assertExactlyOnce(harness, "failed early send")
    }

    /// A partition lost while its outputs sit in the open transaction: they must not be committed
    /// without its state, so that transaction is aborted and the partitions kept are folded again.
    @Test func partitionsLostWithOutputsInTheOpenTransactionAbortIt() throws {
        let harness = try FakeBrokerHarness(seed: 30)
        let broker = harness.broker
        let lost = [harness.partition(2)]
        broker.onCall(3, of: .begin) { broker.lose(lost) }
        let runtime = harness.start(instance: "a") { $0.sendOutputsEarly = true }
        #expect(harness.wait { runtime.metrics.snapshot.partitionsLost > 0 }, "the assignment was lost")
        broker.assignAgain(lost)
        #expect(harness.waitUntilCommitted([runtime]))
        #expect(runtime.halt())
        #expect(runtime.failure == nil, "\(String(describing: runtime.failure))")
        #expect(runtime.metrics.snapshot.transactionsAborted >= 1, "the open transaction was undone")
        try assertExactlyOnce(harness, "lost partitions with early outputs")
    }

    @discardableResult
    func losePartition(during operation: InMemoryBroker.Operation, seed: UInt64) throws
        -> KafkaRuntimeHarness.RunningRuntime
    {
        let harness = try FakeBrokerHarness(seed: seed)
        let broker = harness.broker
        let lost = [harness.partition(2)]
        broker.onCall(3, of: operation) { broker.lose(lost) }
        let runtime = harness.start(instance: "a")
        #expect(harness.wait { runtime.metrics.snapshot.partitionsLost > 0 }, "the assignment was lost")
        broker.assignAgain(lost)
        let committed = harness.waitUntilCommitted([runtime])
        #expect(committed, "\(runtime.metrics.snapshot.inputsCommitted) of \(harness.inputCount) committed; log: \(runtime.logs.suffix(12))")
        #expect(runtime.halt())
        #expect(runtime.failure == nil, "\(String(describing: runtime.failure))")
        #expect(runtime.logs.contains { $0.contains("dropped without committing") })
        try assertExactlyOnce(harness, "lost partitions during \(operation)")
        return runtime
    }
}

/// Refuses the first record sent after each transaction's begin until the runtime logs that the
/// refused one was an early send, at most `remaining` times.
private final class EarlySendRefusal: @unchecked Sendable {
    // Safe: `runtime` is written once by the test thread and read by hooks, both under `lock`.
    private let lock = NSLock()
    private var runtime: KafkaRuntimeHarness.RunningRuntime?
    private let broker: InMemoryBroker

    init(broker: InMemoryBroker) { self.broker = broker }

    func watch(_ runtime: KafkaRuntimeHarness.RunningRuntime) {
        lock.withLock { self.runtime = runtime }
    }

    func refuseAfterNextBegin(remaining: Int) {
        broker.onNext(.begin) { [self] in
            guard remaining > 0, !earlySendRefused else { return }
            broker.failNext(.produce, with: KafkaError(code: .unknown, message: "injected: record not queued"))
            refuseAfterNextBegin(remaining: remaining - 1)
        }
    }

    private var earlySendRefused: Bool {
        guard let runtime = lock.withLock({ runtime }) else { return false }
        return runtime.logLock.withLock { runtime.logs.contains { $0.contains("early outputs not sent") } }
    }
}
