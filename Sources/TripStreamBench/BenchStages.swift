import CHeapStats
import Codec
import Domain
import Foundation
import LZ4IO
import RocksDBIO
import Runtime

/// The stages `tripstream-bench` times, each returning how many items it processed.
struct BenchStages {
    struct Stage {
        var name: String
        var unit: String
        /// Untimed, before each run.
        var prepare: () throws -> Void = {}
        var run: () throws -> Int
    }

    /// The baseline (issue 10): a `Decodable` struct of the fix's fields with `createdAt` kept as
    /// the `String` it is, decoded line by line with one `JSONDecoder`. No date parsing: that would
    /// slow the baseline 4–9× and flatter every ratio to it.
    struct FixDTO: Decodable {
        var userId: String
        var createdAt: String
        var latitude: Double
        var longitude: Double
        var accuracy: Double?
        var speed: Double?
        var course: Double?
        var altitude: Double?
        var deviceId: String?
        var replayed: Bool?
    }

    let workload: BenchWorkload
    let workDirectory: String
    let baselineFixes: Int
    /// Threads of the replay path.
    let threads: Int
    let table: GeofenceTable
    let fixes: [Fix]
    let commands: [TripCommand]

    init(workload: BenchWorkload, workDirectory: String, baselineFixes: Int, threads: Int) {
        self.workload = workload
        self.threads = threads
        self.workDirectory = workDirectory
        self.baselineFixes = baselineFixes
        table = GeofenceTable(workload.geofences)
        fixes = workload.fixLines.map { try! FixDecoder.decode($0) }
        commands = workload.commandLines.map { try! TripCommandDecoder.decode($0) }
    }

    var all: [Stage] {
        [
            Stage(name: "jsondecoder", unit: "fixes", run: jsonDecoderBaseline),
            Stage(name: "decode", unit: "fixes", run: decode),
            Stage(name: "fold", unit: "fixes", run: { fold().fixes }),
            Stage(name: "seal", unit: "fixes", run: foldAndSeal),
            Stage(name: "encode", unit: "events", run: encode),
            Stage(name: "replay path", unit: "fixes", prepare: removeReplayOutputs, run: replayPath),
        ]
    }

    func jsonDecoderBaseline() throws -> Int {
        let decoder = JSONDecoder()
        let count = min(baselineFixes, workload.fixLines.count)
        var checksum = 0.0
        for line in workload.fixLines.prefix(count) {
            checksum += try decoder.decode(FixDTO.self, from: Data(line)).latitude
        }
        precondition(checksum != 0)
        return count
    }

    func decode() throws -> Int {
        var checksum: Int64 = 0
        for line in workload.fixLines { checksum &+= try FixDecoder.decode(line).createdAt }
        precondition(checksum != 0)
        return workload.fixLines.count
    }

    /// Folds every input in arrival order; returns the fold and the events it produced.
    func fold(keepEvents: Bool = false, settings: FoldSettings = FoldSettings())
        -> (fixes: Int, events: [Event], fold: PartitionFold)
    {
        // History beyond each user's tail goes to RocksDB, as in the service and replay; committed
        // every 10,000 fixes as the service does per transaction.
        try? ReplayJob.makeDirectory(workDirectory)
        let history = try! RocksHistoryStore(directory: workDirectory + "/fold-history", fresh: true, recordsChanges: false)
        var fold = PartitionFold(settings: settings, history: history)
        var events: [Event] = []
        var kept: [Event] = []
        var nextCommand = 0
        for (index, fix) in fixes.enumerated() {
            while nextCommand < commands.count, workload.commandPositions[nextCommand] <= index {
                let command = commands[nextCommand]
                _ = fold.process(command, geofences: table, processingTime: max(fold.streamTime, command.createdAt),
                                 events: &events)
                nextCommand += 1
            }
            _ = fold.process(fix, geofences: table, processingTime: max(fold.streamTime, fix.createdAt), events: &events)
            if index % 10_000 == 9_999 {
                fold.settle(geofences: table, processingTime: fold.streamTime, events: &events)
                try! history.commit()
            }
            if keepEvents { kept.append(contentsOf: events) }
            events.removeAll(keepingCapacity: true)
        }
        fold.settle(geofences: table, processingTime: fold.streamTime, events: &events)
        if keepEvents { kept.append(contentsOf: events) }
        try! history.commit()
        return (fixes.count, kept, fold)
    }

    /// The run path's CPU without a broker: every input through `InputProcessor` (events encoded),
    /// and every `sealInputs` inputs what a transaction's seal adds, each touched user's users-topic
    /// record and state-changelog record. At 80,000 fixes/s a 25 ms transaction holds 2,000.
    func foldAndSeal() -> Int {
        let sealInputs = 2_000
        try? ReplayJob.makeDirectory(workDirectory)
        let history = try! RocksHistoryStore(directory: workDirectory + "/fold-history", fresh: true, recordsChanges: false)
        var processor = InputProcessor(settings: FoldSettings(), history: history)
        var output = OutputBatch(newlineSeparated: false)
        var changelogBytes = 0
        func seal() {
            processor.flushUsers(geofences: table, now: processor.fold.streamTime, into: &output) { timeline in
                let key = Array(timeline.userId.utf8)
                changelogBytes += key.count + TimelineCodec.encode(timeline).count
            }
            try! history.commit()
            output.removeAll()
        }
        var nextCommand = 0
        for (index, fix) in fixes.enumerated() {
            while nextCommand < commands.count, workload.commandPositions[nextCommand] <= index {
                let source = RecordSource(topic: ReplayJob.commandsTopic, partition: 0, offset: Int64(nextCommand))
                workload.commandLines[nextCommand].withUnsafeBytes { value in
                    processor.process(.command(commands[nextCommand]), key: nil, value: value, source: source,
                                      geofences: table, processingTime: nil, into: &output)
                }
                nextCommand += 1
            }
            let source = RecordSource(topic: ReplayJob.fixesTopic, partition: 0, offset: Int64(index))
            workload.fixLines[index].withUnsafeBytes { value in
                processor.process(.fix(fix), key: nil, value: value, source: source, geofences: table,
                                  processingTime: nil, into: &output)
            }
            if index % sealInputs == sealInputs - 1 { seal() }
        }
        seal()
        precondition(changelogBytes > 0)
        return fixes.count
    }

    func encode() -> Int {
        _ = encodeInput  // fold once, then borrow the cached events in place (no copy of the array)
        var events = Self.eventsCache.take()!
        defer { Self.eventsCache = events }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        var fragments = GeofenceFragments()  // as the replay path encodes: each geofence's JSON once per run
        events.withUnsafeMutableBufferPointer { events in
            for index in events.indices {  // by index, in place: iterating values would copy every event
                EventEncoder.encode(inPlace: &events[index], actualCreatedAt: events[index].createdAt,
                                    fragments: &fragments, into: &buffer)
                if events[index].type == .updatedTrip {
                    EtaEncoder.encode(inPlace: &events[index], actualCreatedAt: events[index].createdAt, into: &buffer)
                }
                if buffer.count > 1 << 20 { buffer.removeAll(keepingCapacity: true) }
            }
        }
        return events.count
    }

    private var encodeInput: [Event] { Self.cachedEvents(self) }

    nonisolated(unsafe) private static var eventsCache: [Event]?
    private static func cachedEvents(_ stages: BenchStages) -> [Event] {
        if let cached = eventsCache { return cached }
        let events = stages.fold(keepEvents: true).events
        eventsCache = events
        return events
    }

    /// Removes the last replay's outputs, so that every run writes its files afresh, as a first replay does. (A
    /// replay writes new files beside the previous run's and renames them over it only once complete: timed over
    /// the last run's files, a run also paid for freeing their pages.)
    func removeReplayOutputs() throws {
        try? FileManager.default.removeItem(atPath: workDirectory + "/out")
    }

    /// `tripstream replay` over the workload's files, with its default partitions and `threads`.
    func replayPath() throws -> Int {
        let paths = try writeInputs()
        var options = ReplayOptions(
            geofencesPath: paths.geofences, commandsPath: paths.commands, fixesPath: paths.fixes,
            outputDirectory: workDirectory + "/out", settings: FoldSettings())
        options.threads = threads
        let summary = try ReplayJob.run(options)
        Self.lastReplay = summary
        return summary.fold.fixes
    }

    /// The summary of the last replay-path run (events per fix).
    nonisolated(unsafe) static var lastReplay: ReplaySummary?

    /// Writes the workload as files once (the replay stage reads them every run).
    func writeInputs() throws -> (geofences: String, commands: String, fixes: String) {
        let paths = (workDirectory + "/geofences.ndjson", workDirectory + "/commands.ndjson",
                     workDirectory + "/fixes.ndjson")
        if Self.inputsWritten { return paths }
        try ReplayJob.makeDirectory(workDirectory)
        for (path, lines) in [(paths.0, workload.geofenceLines), (paths.1, workload.commandLines),
                              (paths.2, workload.fixLines)]
        {
            let writer = try FileWriter(path: path)
            for line in lines {
                try writer.write(line)
                try writer.write(byte: UInt8(ascii: "\n"))
            }
            try writer.close()
        }
        Self.inputsWritten = true
        return paths
    }

    nonisolated(unsafe) private static var inputsWritten = false

    /// Heap bytes per user once every fix of the workload is folded (events discarded as they come),
    /// and the bytes of that the history store holds for itself (write buffers and block cache, a
    /// fixed budget, not per user).
    func memoryPerUser(settings: FoldSettings = FoldSettings()) -> (bytesPerUser: Int, users: Int, storeBytes: Int) {
        let before = tripstream_heap_in_use()
        let cacheBefore = RocksDatabase.sharedCacheInUse
        let result = fold(settings: settings)
        let after = tripstream_heap_in_use()
        let users = result.fold.userCount
        let store = result.fold.history as? RocksHistoryStore
        let storeBytes = (store?.database.memoryInUse ?? 0) + RocksDatabase.sharedCacheInUse - cacheBefore
        withExtendedLifetime(result.fold) {}
        store?.close()
        return ((Int(after) - Int(before)) / max(users, 1), users, storeBytes)
    }
}

