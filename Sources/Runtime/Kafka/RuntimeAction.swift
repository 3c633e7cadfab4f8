import Domain
import KafkaIO

/// What ``RuntimeStateMachine`` asks its executor to do: each action is one call to the broker's
/// clients, the fold threads, the local state or the transactional producer. The executor carries it
/// out and hands back a ``RuntimeActionResult``.
enum RuntimeAction {
    // MARK: Inputs
    /// Polls the fixes' consumer (its rebalance events with it) → `.polled`.
    case poll
    /// Polls the trip commands' reader → `.commandsPolled`.
    case pollCommands
    /// Asks where the input streams that heads wait on end → `.streamEnds`.
    case confirmEnds(fixes: [Int32], commands: [Int32])
    /// Applies newly arrived geofence records → `.geofencesPolled`.
    case pollGeofences
    /// Moves a restored partition's inputs to what its state covers → `.sought`.
    case seek(PartitionOwner)
    /// Stops or resumes fetching partitions (fixes and commands).
    case pause([Int32])
    case resume([Int32])
    /// Hands revoked partitions over to the group, their work committed.
    case release([Int32])
    /// Asks whether offsets of an open transaction are pending for partitions (KIP-447), whose changelog
    /// it may still write: a restore waits until they are not → `.stable`.
    case checkStable([Int32])
    /// Starts or stops reading partitions' trip commands.
    case addCommands(Int32, KafkaReader.StartOffset)
    case removeCommands([Int32])
    /// Asks the fixes' ends of owned partitions → `.lag`.
    case measureLag([Int32])

    // MARK: Partitions
    /// Rebuilds partitions from their snapshots and changelogs, given the group's committed offsets → `.restored`.
    case restore([Int32], committed: [TopicPartition: Int64])
    /// Lets go of partitions given up: their stores closed, their fetching resumed if paused.
    case retire([PartitionOwner])
    /// Folds what is ready in each partition (on the fold threads) → `.folded`; `drain`: everything fetched.
    case fold([PartitionOwner], drain: Bool)
    /// Forgets what was folded since the last commit.
    case dropUncommitted([PartitionOwner])
    /// Writes the history changes a committed transaction made durable to the local stores.
    case commitHistory([(owner: PartitionOwner, generation: UInt64)])
    /// Closes the dirty partitions' parts of a transaction (after checking every store) → `.sealed`.
    case seal(owners: [PartitionOwner], dirty: [PartitionOwner], shared: OutputBatch)

    // MARK: The transactional producer
    /// → `.producer(acceptsEarly:)`.
    case checkProducer
    case submit(SealedTransaction)
    case sendEarly([OutputBatch])
    /// Aborts the open transaction and waits until it is done → `.discarded`.
    case discardOpenTransaction
    /// → `.transactionEnded` or `.noTransactionOutcome`.
    case takeTransactionOutcome
    /// Waits for the transaction in flight to end → `.transactionEnded`.
    case awaitTransactionOutcome

    // MARK: Snapshots
    /// → `.snapshotWriter(busy:)`.
    case checkSnapshotWriter
    /// Images partitions with nothing uncommitted now.
    case imageClean([PartitionOwner])
    /// Asks where partitions' changelogs end → `.changelogEnds`.
    case changelogEnds([Int32])
    /// Hands committed images to the snapshot writer (after synchronizing each store).
    case submitSnapshots([(owner: PartitionOwner, job: SnapshotWriter.Job)])
    /// Writes the snapshots of partitions whose memory equals their changelog (hand-over, shutdown).
    case writeSnapshots([PartitionOwner])

    // MARK: The end
    /// The instance cannot go on: the executor throws `error`.
    case fail(any Error)
    /// Stopped cleanly: the executor shuts down.
    case finished
}

/// How an action went, for ``RuntimeStateMachine/receive(_:at:)``.
enum RuntimeActionResult {
    case done
    case polled([ConsumedRecord], [RebalanceEvent])
    case commandsPolled([ConsumedRecord])
    case streamEnds(fixes: [Int32: StreamMerge.StreamEnd], commands: [Int32: StreamMerge.StreamEnd])
    /// Whether the table changed, its size, and the dead letters of the records it rejected.
    case geofencesPolled(changed: Bool, geofences: Int, deadLetters: OutputBatch)
    /// A seek, and why it failed (nil: it did not).
    case sought(Int32, (any Error)?)
    /// The fixes' ends, nil when the broker did not say.
    case lag([TopicPartition: Int64]?)
    case changelogEnds([TopicPartition: Int64]?)
    /// The partitions restored, and those whose changelog cannot be read as far as their committed offsets yet.
    case restored([PartitionOwner], unreadable: [Int32])
    /// Partitions whose committed offsets are stable (and those offsets, fixes and commands), and those with
    /// offsets pending in an open transaction.
    case stable(ready: [Int32], pending: [Int32], committed: [TopicPartition: Int64])
    /// Seconds the round took, and the snapshots written meanwhile.
    case folded(seconds: Double, snapshots: [SnapshotWriter.Result])
    case sealed(SealedTransaction)
    case producer(acceptsEarly: Bool)
    case snapshotWriter(busy: Bool)
    case transactionEnded(TransactionReceipt, CommitOutcome)
    case noTransactionOutcome
    /// The discard's outcome (nil: no transaction was open).
    case discarded(CommitOutcome?)
}

/// A reading of the injected clock: monotonic seconds and milliseconds since 1970.
struct RuntimeInstant {
    var monotonic: Double
    var wall: UnixMillis

    init(_ clock: any Clock) {
        monotonic = clock.monotonic()
        wall = clock.now()
    }
}

/// What the machine reports besides its actions: log lines and metric updates, in order.
enum RuntimeReport {
    case log(String)
    case metrics((inout RuntimeMetrics.Values) -> Void)
    /// Every partition's counters, to which the executor adds the geofence table's.
    case counters(PublishedCounters)
}

/// The counters of the owned partitions and of those given up.
struct PublishedCounters {
    var fold = FoldCounters()
    var processor = ProcessorCounters()
    var users = 0
    var consumed: [String: Int] = [:]
    var forcedMerges = 0
    var corruptSegments = 0
    var oversizedOutputs = 0
}
