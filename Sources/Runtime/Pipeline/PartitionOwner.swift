import Codec
import Domain
import KafkaIO

/// One owned input partition: its merge of fixes and commands, its ``PartitionEngine`` (the one every
/// replay drives too), and what the engine produced since the partition's last seal into a transaction.
///
/// A class confined to one thread at a time: the driver between fold rounds, one fold thread during
/// a round (`FoldThreads` hands each partition to exactly one thread).
final class PartitionOwner: @unchecked Sendable {
    let partition: Int32
    /// The partition's fold and its rules: only the engine reaches into the fold.
    private(set) var engine: PartitionEngine
    var merge: StreamMerge
    /// Outputs of the inputs folded since the last seal.
    var output = OutputBatch(newlineSeparated: false)
    /// Next offsets to read: what a restore resumes from.
    private(set) var locationsOffset: Int64
    private(set) var commandsOffset: Int64
    /// Whether anything changed since the last seal.
    var dirty = false
    /// Wall-clock time (ms) of the last input folded, or of when the partition was taken.
    private(set) var lastInputAt: UnixMillis
    /// Inputs folded, by stream.
    private(set) var foldedFixes = 0
    private(set) var foldedCommands = 0
    /// Times stream time was moved on by the wall clock while the partition was quiet.
    private(set) var idleAdvances = 0
    /// Kafka timestamps of the inputs folded since the last seal (for the commit latency).
    var uncommittedTimestamps: [Int64] = []
    /// Inputs folded since the last seal.
    private var unsealedInputs = 0
    /// Whether a transaction holding this partition's changes is sealed but not yet committed.
    var sealedUncommitted = false
    /// The snapshot rotation (`StreamRuntime+SnapshotRotation`): whether the partition is imaged for
    /// its snapshot, and when its last snapshot was taken (monotonic seconds; when the partition was
    /// taken, before its first).
    var snapshotCapture = SnapshotCapture.none
    var lastSnapshotAt: Double
    /// Whether the consumer was told to stop fetching this partition (its merge holds too much).
    var paused = false

    /// Whether the changelog had a checkpoint: then the inputs resume from its offsets.
    let hasCheckpoint: Bool
    /// The checkpoint of the partition's state as its changelog last got it from this owner (its last
    /// seal), or as restored: what the next seal's checkpoint goes on from, and a clean image's checkpoint.
    private(set) var sealedCheckpoint: PartitionCheckpoint
    /// The users' history segments (local RocksDB, mirrored in the changelog).
    let history: RocksHistoryStore

    /// Whether each seal keeps an image of the fold (see `RuntimeOptions.capturesCommittedState`).
    var capturesImages = false

    init(partition: Int32, settings: FoldSettings, checkpoint: PartitionCheckpoint?, history: RocksHistoryStore,
         mergeWait: Double = 2, now: UnixMillis = WallClock.now(), monotonic: Double = WallClock.monotonic())
    {
        self.partition = partition
        self.history = history
        hasCheckpoint = checkpoint != nil
        sealedCheckpoint = checkpoint ?? PartitionCheckpoint(locationsOffset: 0, commandsOffset: 0, streamTime: .min)
        engine = PartitionEngine(processor: InputProcessor(settings: settings, history: history))
        locationsOffset = checkpoint?.locationsOffset ?? 0
        commandsOffset = checkpoint?.commandsOffset ?? 0
        if let streamTime = checkpoint?.streamTime { engine.restoreStreamTime(streamTime) }
        merge = StreamMerge(fixesFrom: locationsOffset, commandsFrom: commandsOffset, mergeWait: mergeWait,
                            now: monotonic)
        lastInputAt = now
        lastSnapshotAt = monotonic
    }

    /// The checkpoint of the state as it is, going on from the last sealed one.
    var checkpoint: PartitionCheckpoint {
        PartitionCheckpoint(locationsOffset: locationsOffset, commandsOffset: commandsOffset,
                            streamTime: engine.streamTime, previous: sealedCheckpoint.position)
    }

    /// The checkpoint a snapshot of the partition as it is claims: the sealed one when nothing changed since.
    var imageCheckpoint: PartitionCheckpoint { dirty ? checkpoint : sealedCheckpoint }

    /// Whether any input was folded (or a checkpoint restored): its offsets mean something.
    var hasProgress: Bool { hasCheckpoint || locationsOffset > 0 || commandsOffset > 0 }

    var pendingCount: Int { merge.pendingCount }

    func take(fix record: ConsumedRecord, round: UInt64) { merge.take(fix: record, round: round) }
    func take(command record: ConsumedRecord, round: UInt64) { merge.take(command: record, round: round) }

    /// Folds every pending input whose turn has come.
    /// - Parameters:
    ///   - now: processing time (ms since 1970); `monotonic`: seconds, for the merge's wait clock.
    ///   - drain: fold everything fetched (shutting down).
    func foldReady(geofences: GeofenceTable, now: UnixMillis, monotonic: Double, drain: Bool = false,
                   source: Topics)
    {
        var table = geofences  // the engine's to move along (a replay's timeline); run's never changes here
        merge.takeReady(now: monotonic, drain: drain) { input, stream in
            switch stream {
            case .commands:
                commandsOffset = input.offset + 1
                foldedCommands += 1
                fold(input, topic: source.tripCommands, geofences: &table, now: now)
            case .fixes:
                locationsOffset = input.offset + 1
                foldedFixes += 1
                fold(input, topic: source.locations, geofences: &table, now: now)
            }
        }
        // Late inputs stay queued until the fold's policy places them (`FoldSettings.latePlacementInputs`)
        // or the seal does: a poll round's size, a matter of timing, decides nothing.
        engine.endBatch()
    }

    private func fold(_ input: PendingInput, topic: String, geofences: inout GeofenceTable, now: UnixMillis) {
        if input.timestamp >= 0 { uncommittedTimestamps.append(input.timestamp) }
        unsealedInputs += 1
        lastInputAt = now
        input.value.withUnsafeBytes { value in
            let record = PartitionEngine.Record(
                key: input.key, value: value, source: RecordSource(topic: topic, partition: partition, offset: input.offset),
                timestamp: input.timestamp)
            engine.fold(input.decoded, record, geofences: &geofences, processingTime: now, into: &output)
        }
        dirty = true
    }

    /// Moves a quiet partition's stream time on by the wall clock (see `RuntimeOptions.idleAdvance`):
    /// when nothing is pending and nothing was folded for `idle` ms, stream time becomes `now - idle`.
    func advanceIfIdle(now: UnixMillis, idle: Int64, geofences: GeofenceTable) {
        guard idle > 0, pendingCount == 0, now - lastInputAt >= idle else { return }
        let target = now - idle
        guard target > engine.streamTime else { return }
        engine.advanceStreamTime(to: target, geofences: geofences, processingTime: now, into: &output)
        idleAdvances += 1
        dirty = true
    }

    /// Closes this partition's part of a transaction: the users changed since the last seal are
    /// encoded (users topic and changelog, on the fold threads), then the history changes and the
    /// checkpoint follow. (Encoding them at the end of every fold round instead, so that the driver
    /// waits less here, cost a fifth of the pipeline's throughput: `bench --pipeline`, 132k/138k
    /// against 108k/117k fixes/s at --threads 1, 176k against 132k at 2.)
    func seal(geofences: GeofenceTable, now: UnixMillis, horizon: Int64) -> PartitionBatch {
        let imaged = snapshotCapture.awaitsSeal
        if imaged { _ = evictIdleUsers(horizon: horizon) }  // before the touched users are taken
        var changelog: [ChangelogRecord] = []
        engine.flushUsers(geofences: geofences, now: now, into: &output) { timeline in
            changelog.append(ChangelogRecord(key: Array(timeline.userId.utf8), value: TimelineCodec.encode(timeline)))
        }
        for change in history.takeChanges() { changelog.append(ChangelogRecord(key: change.key, value: change.value)) }
        let sealing = checkpoint
        sealedCheckpoint = sealing
        changelog.append(ChangelogRecord(key: PartitionCheckpoint.key, value: sealing.bytes))
        var sealed = OutputBatch(newlineSeparated: false)
        swap(&sealed, &output)
        var timestamps: [Int64] = []
        swap(&timestamps, &uncommittedTimestamps)
        let inputs = unsealedInputs
        unsealedInputs = 0
        dirty = false
        sealedUncommitted = true
        // What the changelog holds once this transaction committed (a copy sharing storage until the
        // fold changes it).
        if imaged { snapshotCapture = .sealed(image: engine.image, checkpoint: sealing) }
        return PartitionBatch(
            partition: partition, owner: ObjectIdentifier(self), output: sealed, changelog: changelog,
            historyGeneration: history.seal(), offsets: hasProgress ? (locationsOffset, commandsOffset) : nil,
            inputs: inputs, inputTimestamps: timestamps, checkpoint: sealing, image: capturesImages ? engine.image : nil)
    }

    /// Installs the state a restore read, before any input is folded.
    func install(_ restore: PartitionRestore, geofences: GeofenceTable) throws {
        try engine.install(restore, geofences: geofences)
    }

    /// Users idle beyond the horizon leave memory before an image (their state goes to the local
    /// store; the snapshot no longer holds them). Their state is committed already (they were not
    /// touched since the last seal): the store's writes join the generation being folded.
    func evictIdleUsers(horizon: Int64) -> Int {
        let streamTime = engine.streamTime
        guard streamTime != .min else { return 0 }
        return engine.evictIdleUsers(before: streamTime - horizon)
    }

    /// Forgets what was folded since the last commit (the transaction was aborted or the partition lost).
    func dropUncommitted() {
        if case .sealed = snapshotCapture { snapshotCapture = .none }  // an image of work now undone
        output.removeAll()
        history.discard()
        uncommittedTimestamps.removeAll(keepingCapacity: true)
        unsealedInputs = 0
        dirty = false
    }
}
