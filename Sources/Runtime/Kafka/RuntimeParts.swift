import Codec
import Domain
import KafkaIO

/// The runtime state machine's part for the partitions it owns: their owners (merge, engine,
/// outputs since the last seal), the poll round, and which partitions' positions are being moved.
struct Assignment {
    var owners: [Int32: PartitionOwner] = [:]
    /// Counts polls: inputs remember the round that took them (see `StreamMerge`).
    var pollRound: UInt64 = 0
    /// This round's fixes, until taken by their partitions, and how many the poll returned.
    var polled: [ConsumedRecord] = []
    var polledCount = 0
    /// Partitions sought (assigned from a checkpoint, or rebuilt) since this round's poll: the
    /// records it fetched for them predate the seek, which fetches them again.
    var soughtSincePoll = Set<Int32>()
    /// Owned partitions whose seek failed (the consumer was changing its assignment): retried every
    /// round, their records dropped until it succeeds.
    var unsought = Set<Int32>()
    /// The partitions whose stream ends were asked, until the answer comes.
    var confirming: [Int32] = []
    /// Partitions whose restore waits (an open transaction has offsets pending for them, or holds their
    /// changelog's end behind what is committed), with what follows their restore and since when they wait.
    var awaitingRestore: [Int32: (then: RuntimeStateMachine.AfterRestore, since: Double)] = [:]
    /// When waiting restores are tried next (once a second).
    var nextRestoreRetry = 0.0
    /// What follows the restore under way (from the stability check to the restore's result), and whether
    /// its partitions waited before.
    var restoring: (then: RuntimeStateMachine.AfterRestore, retry: Bool)?

    var sortedOwners: [PartitionOwner] { owners.keys.sorted().map { owners[$0]! } }
}

/// The runtime state machine's part for transactions: the one in flight, what was sent early into
/// the open one, and the outputs of no input partition waiting for the next seal.
struct CommitPipeline {
    /// Whether a sealed transaction was submitted and its outcome not yet applied.
    var inFlight = false
    /// Partitions whose outputs were sent early into the open transaction.
    var sentEarly = Set<Int32>()
    /// Outputs of no input partition (the geofence table's dead letters), for the next seal.
    var shared = OutputBatch(newlineSeparated: false)
    /// Monotonic seconds of the last seal, and of the seal under way (its interval runs from it).
    var lastSeal: Double
    var sealStarted = 0.0
    /// Whether the last round took everything fetched and the poll before it came back short:
    /// no backlog, so a transaction may be sealed early (see `sealIfDue`).
    var caughtUp = false
}

/// The runtime state machine's part for what goes on beside folding: the snapshot rotation, the
/// lag gauge, and the counters of partitions given up (so totals survive rebalances).
struct Upkeep {
    var lastSnapshot: Double
    var lastLagCheck: Double
    /// Committed images waiting for their changelogs' ends, and when they were taken from their owners.
    var imagesAwaitingEnds: [Int32] = []
    var imagesTakenAt = 0.0
    /// The owned-partition count last reported.
    var reportedOwnedPartitions = 0
    var retired = PublishedCounters()
}
