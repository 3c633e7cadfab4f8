import Codec
import Domain

/// The engine of one input partition, which every mode drives: `run` (``PartitionOwner``), and the replays of
/// files, topics and archives (``ReplayPartition``). Its driver hands it the partition's records one by one, in
/// the order it has them, and it applies in one place the rules they share:
/// - **the future clock**: a record with a timestamp is judged by it (`InputProcessor.rejectIfAhead`); one
///   without (a file's line) is judged by the wall clock where there is one (the fold's own rule), and by the
///   stream where there is none (``ClockGuard``);
/// - **commands**: those scheduled ahead (a replay reads a partition's commands before its fixes) are folded
///   before the first fix not older than them; those its driver merged already (`run`'s ``StreamMerge``) at once;
/// - **geofences** follow a ``GeofenceTimeline`` by record timestamp, when the driver gives one;
/// - **late inputs** are placed by the fold's policy (`FoldSettings.latePlacementInputs`), and all of them by
///   ``settle(geofences:processingTime:into:)``.
///
/// Processing time is the driver's: the wall clock in `run`, nil in a replay (the stream time then stands for it,
/// so a replay's output depends on its inputs alone).
struct PartitionEngine {
    /// Decode, fold and encode, with the partition's fold (its users, stream time and timers).
    var processor: InputProcessor
    private var clock: ClockGuard
    /// Commands scheduled ahead, in event-time order, and the next one due.
    private var scheduled: [ScheduledCommand] = []
    private var nextScheduled = 0
    private var timeline: GeofenceTimeline.Cursor?

    /// One record as its driver read it. `value` is lent for the call only.
    struct Record {
        var key: [UInt8]?
        var value: UnsafeRawBufferPointer
        var source: RecordSource
        /// The record's Kafka timestamp (ms); negative when it has none (Kafka's -1, a file's line).
        var timestamp: Int64
    }

    /// A trip command read ahead of the fixes, decoded, with its record for a dead letter.
    struct ScheduledCommand {
        var command: TripCommand
        var bytes: [UInt8]
        var source: RecordSource
        var timestamp: Int64 = .min
        var key: [UInt8]? = nil

        /// `commands` in event-time order, keeping their arrival order among equal times (a stable sort).
        static func inEventTimeOrder(_ commands: [ScheduledCommand]) -> [ScheduledCommand] {
            commands.stablySorted { $0.command.createdAt < $1.command.createdAt }
        }
    }

    init(processor: InputProcessor, timeline: GeofenceTimeline.Cursor? = nil) {
        self.processor = processor
        self.timeline = timeline
        clock = ClockGuard(skew: processor.fold.settings.maxClockSkew)
    }

    /// Commands to fold before the first fix not older than each (in event-time order already).
    mutating func schedule(_ commands: [ScheduledCommand]) {
        scheduled.removeFirst(nextScheduled)
        nextScheduled = 0
        scheduled.append(contentsOf: commands)
    }

    /// Scheduled commands not folded yet.
    var scheduledLeft: Int { scheduled.count - nextScheduled }

    // MARK: - Records

    /// Folds one record of the partition's fixes or commands, decoded by the driver.
    mutating func fold(_ input: DecodedInput, _ record: Record, geofences: inout GeofenceTable,
                       processingTime: UnixMillis?, into output: inout OutputBatch)
    {
        switch input {
        case let .fix(fix): fold(fix, record, geofences: &geofences, processingTime: processingTime, into: &output)
        case let .command(command):
            processor.counters.recordsIn += 1
            timeline?.advance(to: record.timestamp, table: &geofences)
            if rejectIfAhead(command.createdAt, record, processingTime: processingTime, into: &output) { return }
            processor.process(command, key: record.key, value: record.value, source: record.source,
                              geofences: geofences, processingTime: processingTime, into: &output)
        case let .invalid(error):
            timeline?.advance(to: record.timestamp, table: &geofences)
            processor.process(.invalid(error), key: record.key, value: record.value, source: record.source,
                              geofences: geofences, processingTime: processingTime, into: &output)
        }
    }

    /// Folds one fix record.
    mutating func fold(_ fix: Fix, _ record: Record, geofences: inout GeofenceTable, processingTime: UnixMillis?,
                       into output: inout OutputBatch)
    {
        processor.counters.recordsIn += 1
        timeline?.advance(to: record.timestamp, table: &geofences)
        if rejectIfAhead(fix.createdAt, record, processingTime: processingTime, into: &output) { return }
        if record.timestamp < 0, processingTime == nil {
            // No record time and no wall clock: the stream judges the fix's clock.
            guard admitByStream(fix, record, geofences: &geofences, into: &output) else { return }
        }
        deliverScheduled(upTo: fix.createdAt, geofences: &geofences, processingTime: processingTime, into: &output)
        processor.process(fix, key: record.key, value: record.value, source: record.source, geofences: geofences,
                          processingTime: processingTime, into: &output)
        if clock.isHolding {
            // The stream may have caught up with held fixes: within the skew they are ahead no more.
            fold(clock.takeHeld(caughtUpWith: processor.fold.streamTime), geofences: &geofences, into: &output)
        }
    }

    /// Whether `fix` folds now, by the ``ClockGuard``'s verdict; a held one is kept, released ones folded first.
    private mutating func admitByStream(_ fix: Fix, _ record: Record, geofences: inout GeofenceTable,
                                        into output: inout OutputBatch) -> Bool
    {
        while true {
            switch clock.judge(fix, streamTime: processor.fold.streamTime) {
            case .fold: return true
            case .hold:
                clock.hold(fix, bytes: record.value, source: record.source, key: record.key)
                return false
            case .confirm:
                let confirmed = clock.takeHeld(caughtUpWith: fix.createdAt)
                guard !confirmed.isEmpty else {
                    clock.hold(fix, bytes: record.value, source: record.source, key: record.key)
                    return false
                }
                fold(confirmed, geofences: &geofences, into: &output)
                return true
            case .refute: rejectHeld(into: &output)
            }
        }
    }

    private mutating func rejectIfAhead(_ time: UnixMillis, _ record: Record, processingTime: UnixMillis?,
                                        into output: inout OutputBatch) -> Bool
    {
        processor.rejectIfAhead(time, of: record.timestamp, key: record.key, value: record.value,
                                source: record.source, processingTime: processingTime, into: &output)
    }

    /// Folds each scheduled command due by `time`.
    private mutating func deliverScheduled(upTo time: UnixMillis, geofences: inout GeofenceTable,
                                           processingTime: UnixMillis?, into output: inout OutputBatch)
    {
        // Read in place: `scheduled[nextScheduled].command.createdAt` copied the whole command out first.
        while nextScheduled < scheduled.count,
            scheduled.withUnsafeBufferPointer({ $0[nextScheduled].command.createdAt }) <= time
        {
            let pending = scheduled[nextScheduled]
            nextScheduled += 1
            timeline?.advance(to: pending.timestamp, table: &geofences)
            pending.bytes.withUnsafeBytes { bytes in
                let record = Record(key: pending.key, value: bytes, source: pending.source, timestamp: pending.timestamp)
                guard !rejectIfAhead(pending.command.createdAt, record, processingTime: processingTime, into: &output)
                else { return }
                processor.process(pending.command, key: pending.key, value: bytes, source: pending.source,
                                  geofences: geofences, processingTime: processingTime, into: &output)
            }
        }
    }

    /// Folds fixes released from the clock guard, in the order they came.
    private mutating func fold(_ released: [ClockGuard.Held], geofences: inout GeofenceTable,
                               into output: inout OutputBatch)
    {
        for held in released {
            deliverScheduled(upTo: held.fix.createdAt, geofences: &geofences, processingTime: nil, into: &output)
            held.bytes.withUnsafeBytes { bytes in
                processor.process(held.fix, key: held.key, value: bytes, source: held.source, geofences: geofences,
                                  processingTime: nil, into: &output)
            }
        }
    }

    private mutating func rejectHeld(into output: inout OutputBatch) {
        let streamTime = processor.fold.streamTime
        for held in clock.takeHeld() {
            let ahead = (held.fix.createdAt - streamTime) / 1000
            held.bytes.withUnsafeBytes { bytes in
                processor.reject(
                    .futureTimestamp,
                    "createdAt is \(ahead) s ahead of the stream, which other users' fixes did not follow (a wrong device clock)",
                    key: held.key, value: bytes, source: held.source, processingTime: nil, into: &output)
            }
        }
    }

    // MARK: - Ends

    /// The end of the input: what the clock guard holds is decided (a wrong clock if the stream went on
    /// without it, a lone user's gap otherwise), the commands left are folded, and the late inputs placed.
    mutating func finish(geofences: inout GeofenceTable, processingTime: UnixMillis?, into output: inout OutputBatch) {
        if clock.contradicted {
            rejectHeld(into: &output)
        } else {
            fold(clock.takeHeld(), geofences: &geofences, into: &output)
        }
        deliverScheduled(upTo: .max, geofences: &geofences, processingTime: processingTime, into: &output)
        settle(geofences: geofences, processingTime: processingTime, into: &output)
    }

    /// Places every queued late input now (before states are read or persisted).
    mutating func settle(geofences: GeofenceTable, processingTime: UnixMillis?, into output: inout OutputBatch) {
        processor.settle(geofences: geofences, processingTime: processingTime, into: &output)
    }

    /// The end of a batch of records: late inputs stay queued (the fold's policy places them).
    mutating func endBatch() { processor.endBatch() }
}
