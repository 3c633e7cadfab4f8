import Domain
import Foundation
import KafkaIO

/// How `tripstream run` runs: brokers and client properties, group, state, topics, timing.
public struct RuntimeOptions: Sendable {
    /// librdkafka properties shared by every client (`bootstrap.servers`, SASL, TLS, ...).
    public var kafka: KafkaConfiguration
    /// Consumer group of the instances that share the work. Default: `tripstream`.
    public var group = "tripstream"
    /// Where partition snapshots are kept, one directory per group. Required.
    public var stateDirectory: String
    public var topics = Topics()
    /// How often a transaction commits outputs, state and offsets, ms: the longest between two
    /// seals while inputs flow; a runtime caught up with its inputs seals after a quarter of it when
    /// the committer is idle (`StreamRuntime.sealIfDue`). Default: 100.
    public var commitInterval: Int64 = 100
    /// How often partition snapshots are written, ms. Default: 30 s.
    public var snapshotInterval: Int64 = 30_000
    /// How long a partition waits for the other input stream (silent, but not known to be at its
    /// end) before folding anyway, ms. Default: 2 s.
    public var mergeWait: Int64 = 2_000
    /// A partition with nothing to fold for this long (ms) has its stream time moved to the wall
    /// clock less this, so dwell and expiry timers fire without waiting for its next input (0: never).
    public var idleAdvance: Int64 = 30_000
    /// Records fetched per poll. Default: 10,000.
    public var maxPollRecords = 10_000
    /// Threads folding owned partitions (each partition on one of them). Default: the cores available.
    public var threads = RuntimeOptions.availableCores
    /// Inputs fetched but not folded, per partition, at which its fetching is paused (resumed at
    /// half). Default: 20,000.
    public var maxPendingInputs = 20_000
    /// Whether outputs folded while no transaction commits are sent into the open transaction at once
    /// rather than at its seal (`StreamRuntime.sendOutputsEarly`, `run --send-outputs-early`). Off by
    /// default: on a broker that cannot abort (the dev broker), the outputs of a transaction a crash
    /// rolls back stay visible, and sending them early leaves many more of them there, while a
    /// broker that aborts gains only a shorter commit (read_committed readers see events at commit).
    public var sendOutputsEarly = false
    /// Output bytes a transaction may gather while the previous one commits; at this bound the fold
    /// waits for the commit. Default: 32 MiB.
    public var maxTransactionBytes = 32 << 20
    /// Identifies this instance's transactional producer across restarts (fencing zombies).
    public var instanceId: String
    /// Partitions of topics created at start where the broker allows. Default: 12.
    public var partitions: Int32 = 12
    public var settings = FoldSettings()
    /// Whether each seal keeps an image of the partitions it closes, for ``RuntimeProbes`` (the
    /// simulation compares what a restore rebuilds with what was committed). Default: false.
    package var capturesCommittedState = false

    public init(kafka: KafkaConfiguration, stateDirectory: String, instanceId: String) {
        self.kafka = kafka
        self.stateDirectory = stateDirectory
        self.instanceId = instanceId
    }

    /// Cores this process may run on.
    public static var availableCores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// The committer's producer: the shared client properties, with defaults of its own. Each
    /// commit flushes explicitly, so lingering only adds latency; JSON outputs and the changelog
    /// shrink several-fold with LZ4, and a commit's time is mostly its bytes.
    public var transactionalProducerConfiguration: KafkaConfiguration {
        kafka.lingering(milliseconds: 1).compressingWithLZ4ByDefault()
    }

    /// The transactional id: stable per group and instance, so a restarted instance fences the
    /// one it replaces.
    public var transactionalId: String { "tripstream-\(group)-\(instanceId)" }
}
