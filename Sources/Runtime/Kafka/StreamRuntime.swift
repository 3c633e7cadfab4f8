import Codec
import Domain
import KafkaIO

/// The service: consumes fixes and trip commands, folds them per owned partition, and commits
/// outputs, state changelog and input offsets together in one Kafka transaction per interval.
///
/// The decisions are ``RuntimeStateMachine``'s, a value that returns actions; ``RuntimeExecutor``
/// carries them out on three kinds of threads. The driver (the caller of `run`) polls the consumers,
/// handles rebalances, seals transactions and applies their outcomes. Fold threads (`--threads`, the
/// driver included) fold the owned partitions, each partition on one thread per round. The committer
/// thread owns the transactional producer: while it commits transaction N [begin; outputs; flush;
/// changelog + checkpoints; flush; offsets; commit], the fold goes on into transaction N+1, which is
/// sealed once N ended. Outputs are durable before the changelog record that covers them, so even a
/// broker that cannot abort (librdkafka's mock) can only see outputs repeated after a crash, never
/// lost. docs/exactly-once.md gives the whole argument.
public final class StreamRuntime {
    public let options: RuntimeOptions
    let metrics: RuntimeMetrics
    let log: @Sendable (String) -> Void
    private let stopRequested: @Sendable () -> Bool
    let broker: any Broker
    let clock: any Clock

    /// - Parameters:
    ///   - shouldStop: polled between actions; true starts a graceful shutdown.
    ///   - broker: Kafka through librdkafka, or an in-memory broker in tests.
    public init(options: RuntimeOptions, metrics: RuntimeMetrics, log: @escaping @Sendable (String) -> Void,
                shouldStop: @escaping @Sendable () -> Bool, broker: any Broker = KafkaBroker(),
                clock: any Clock = SystemClock())
    {
        self.options = options
        self.metrics = metrics
        self.log = log
        self.stopRequested = shouldStop
        self.broker = broker
        self.clock = clock
    }

    /// Runs until `shouldStop` says so, then commits, leaves the group and returns.
    public func run() throws {
        let executor = try RuntimeExecutor(options: options, metrics: metrics, log: log, broker: broker, clock: clock,
                                           mode: .threaded)
        defer { executor.shutdown() }
        var stopping = false
        while true {
            let stop = !stopping && stopRequested()
            stopping = stopping || stop
            if try executor.step(stop: stop) == .finished { return }
        }
    }
}
