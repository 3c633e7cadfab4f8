import Domain
import LZ4IO

/// One partition of a replay: the users whose userId hashes to it, with everything one partition
/// of `tripstream run` has: its own processor (fold, stream time, timers), history store, clock
/// guard and trip commands, and the outputs of the current block.
final class ReplayPartition: @unchecked Sendable {
    // Safe: during a fork only the one thread that owns this partition touches it (partition
    // `index` runs on worker `index % threads`); the calling thread reads and clears `output`
    // and reads the rest only between forks, after the join.
    let index: Int
    var processor: InputProcessor
    var output = OutputBatch(newlineSeparated: true)
    let history: RocksHistoryStore
    private var clock: ClockGuard
    /// This partition's trip commands, in event-time order.
    var commands: [ReplayJob.PendingCommand] = []
    private var nextCommand = 0
    /// The first failure of the history store, reported by the calling thread after the join.
    private(set) var failure: String?

    init(index: Int, settings: FoldSettings, history: RocksHistoryStore) {
        self.index = index
        self.history = history
        processor = InputProcessor(settings: settings, history: history)
        clock = ClockGuard(skew: settings.maxClockSkew)
    }

    /// Folds this partition's lines of a block, in file order (each chunk's, chunk after chunk),
    /// then places the late inputs and commits the history, as the service does after each poll.
    func fold(_ chunks: [DecodedChunk], geofences: GeofenceTable) {
        for chunk in chunks {
            for line in chunk.byPartition[index] { fold(line, geofences: geofences) }
        }
        flush(geofences: geofences)
    }

    /// The end of the input: folds what the clock guard still holds and the commands left.
    func finish(geofences: GeofenceTable) {
        releaseHeld(geofences: geofences)
        deliverCommands(upTo: .max, geofences: geofences)
        flush(geofences: geofences)
    }

    private func fold(_ line: ReplayLine, geofences: GeofenceTable) {
        let source = RecordSource(topic: ReplayJob.fixesTopic, partition: 0, offset: Int64(line.number))
        switch line.content {
        case let .tooLong(long):
            ReplayJob.rejectLong(long, topic: ReplayJob.fixesTopic, processor: &processor, output: &output)
        case let .invalid(error):
            processor.process(.invalid(error), key: nil, value: line.bytes, source: source, geofences: geofences,
                              processingTime: nil, into: &output)
        case let .fix(fix):
            processor.counters.recordsIn += 1
            switch clock.judge(fix, streamTime: processor.fold.streamTime) {
            case .fold: break
            case .hold:
                clock.hold(fix, bytes: line.bytes, source: source)
                return
            case .confirm: releaseHeld(geofences: geofences)
            case .refute: rejectHeld()
            }
            deliverCommands(upTo: fix.createdAt, geofences: geofences)
            processor.process(fix, key: nil, value: line.bytes, source: source, geofences: geofences,
                              processingTime: nil, into: &output)
        }
    }

    /// Delivers each command before the first fix of this partition that is not older than it.
    private func deliverCommands(upTo time: UnixMillis, geofences: GeofenceTable) {
        while nextCommand < commands.count, commands[nextCommand].command.createdAt <= time {
            let pending = commands[nextCommand]
            pending.bytes.withUnsafeBytes { bytes in
                processor.process(pending.command, key: nil, value: bytes,
                                  source: RecordSource(topic: ReplayJob.commandsTopic, partition: 0,
                                                       offset: Int64(pending.line)),
                                  geofences: geofences, processingTime: nil, into: &output)
            }
            nextCommand += 1
        }
    }

    private func releaseHeld(geofences: GeofenceTable) {
        for held in clock.takeHeld() {
            deliverCommands(upTo: held.fix.createdAt, geofences: geofences)
            held.bytes.withUnsafeBytes { bytes in
                processor.process(held.fix, key: nil, value: bytes, source: held.source, geofences: geofences,
                                  processingTime: nil, into: &output)
            }
        }
    }

    private func rejectHeld() {
        let streamTime = processor.fold.streamTime
        for held in clock.takeHeld() {
            let ahead = (held.fix.createdAt - streamTime) / 1000
            held.bytes.withUnsafeBytes { bytes in
                processor.reject(
                    .futureTimestamp,
                    "createdAt is \(ahead) s ahead of the stream, which other users' fixes did not follow (a wrong device clock)",
                    key: nil, value: bytes, source: held.source, processingTime: nil, into: &output)
            }
        }
    }

    private func flush(geofences: GeofenceTable) {
        processor.settle(geofences: geofences, processingTime: nil, into: &output)
        do {
            try history.commit()
        } catch {
            failure = failure ?? "\(error)"
        }
        if let problem = history.takeFailure() { failure = failure ?? problem }
    }
}
