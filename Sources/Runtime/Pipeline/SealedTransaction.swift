import Domain
import KafkaIO

/// A state-changelog record of one partition (nil value: deleted).
struct ChangelogRecord: Sendable {
    var key: [UInt8]
    var value: [UInt8]?
}

/// One partition's part of a transaction: what its inputs since the last seal produced, and the
/// state (changelog) and offsets that cover exactly those inputs.
struct PartitionBatch: Sendable {
    let partition: Int32
    /// The owner that sealed it: a partition given up and taken again has a new owner, whose
    /// history must not receive a commit meant for the old one.
    let owner: ObjectIdentifier
    var output: OutputBatch
    var changelog: [ChangelogRecord]
    /// The history store's generation to write to disk once the transaction committed.
    let historyGeneration: UInt64
    /// Next offsets of fixes and commands; nil before the partition folded anything (no offsets to send).
    let offsets: (locations: Int64, commands: Int64)?
    /// Inputs it covers, and their Kafka timestamps (for the input-to-commit latency).
    let inputs: Int
    let inputTimestamps: [Int64]
    /// What its changelog holds once committed: the checkpoint, and the fold's image when captured
    /// (`RuntimeOptions.capturesCommittedState`).
    let checkpoint: PartitionCheckpoint
    let image: PartitionFold?
}

/// Everything one Kafka transaction carries, sealed between two fold rounds.
struct SealedTransaction: Sendable {
    var partitions: [PartitionBatch]
    /// Outputs that belong to no input partition (dead letters of the geofence table).
    var shared: OutputBatch
    /// The consumer's group membership when sealed: a zombie's offsets are refused with it.
    let membership: GroupMembership
    /// Monotonic seconds when sealed.
    let sealedAt: Double

    var recordCount: Int { partitions.reduce(shared.recordCount) { $0 + $1.output.recordCount + $1.changelog.count } }
    var byteCount: Int { partitions.reduce(shared.byteCount) { $0 + $1.output.byteCount } }
}

/// How a transaction ended, as the committer reports it.
enum CommitOutcome: Sendable {
    /// Committed after `seconds`, at wall-clock `at` (the moment read_committed readers may see
    /// it, not when the driver learns of it); `oversized`: outputs replaced by dead letters for their size.
    case committed(seconds: Double, at: UnixMillis, oversized: Int, retries: Int)
    /// Aborted (or its producer replaced): nothing of it is visible; the state must be rebuilt.
    case aborted(reason: String, seconds: Double)
    /// The producer cannot go on (fenced by a newer instance, or a fatal client error).
    case fatal(KafkaError)
}
