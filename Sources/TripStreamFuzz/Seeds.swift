import Codec
import Domain
import LZ4IO
import Runtime
import Simulation

#if canImport(Glibc)
import Glibc
#endif

/// Valid (and a few nearly valid) inputs to start mutating from, per target:
/// - built in: a small simulated fleet folded as the service folds it, then written by the
///   project's own encoders (records, events, dead letters, timelines, segments, snapshots,
///   checkpoints, LZ4 frames), so the seeds follow every change of a format;
/// - from the repository, when run from its root (`--root`): the real Porto rides in
///   `samples/porto` and the examples in `schemas/examples` (valid and invalid).
enum Seeds {
    static func all(root: String?) -> [FuzzTarget: [[UInt8]]] {
        var seeds = builtIn()
        if let root {
            for (target, inputs) in files(root: root) { seeds[target, default: []] += inputs }
        }
        return seeds
    }

    // MARK: - Built in

    static func builtIn() -> [FuzzTarget: [[UInt8]]] {
        var seeds: [FuzzTarget: [[UInt8]]] = [:]
        var settings = SimulationSettings()
        settings.users = 12
        settings.geofences = 30
        settings.cityRadius = 2_000
        settings.duration = 1_800
        settings.offlineChance = 0.03
        settings.duplicateChance = 0.01
        settings.seed = 7
        var simulator = FleetSimulator(settings: settings)
        var records = simulator.geofenceRecords
        while simulator.nextStep(into: &records) {}
        let table = GeofenceTable(simulator.geofences)

        // Records as published: every 20th fix, every command, geofences with and without their key.
        var key: [UInt8] = []
        var value: [UInt8] = []
        var fixes = 0
        var commands = 0
        for record in records {
            InputRecordEncoder.encode(record, key: &key, value: &value)
            switch record {
            case .fix:
                fixes += 1
                if fixes % 50 == 1 { seeds[.fix, default: []].append(value) }
            case .command:
                commands += 1
                if commands % 3 == 1 { seeds[.tripCommand, default: []].append(value) }
            case .geofence:
                let n = seeds[.geofence]?.count ?? 0
                if n < 30 { seeds[.geofence, default: []].append(n % 2 == 0 ? key + [0] + value : value) }
            }
        }
        seeds[.geofence, default: []].append(Array("tag/external-id\u{0}".utf8))
        seeds[.geofence, default: []].append(Array("tag/external-id\u{0}null".utf8))

        // The fold, with small segments so that users have history in the store.
        var foldSettings = FoldSettings()
        foldSettings.segmentInputs = 4
        let store = MemoryHistoryStore()
        var fold = PartitionFold(settings: foldSettings, history: store)
        var events: [Event] = []
        for record in records {
            let now: UnixMillis
            switch record {
            case let .fix(f):
                now = f.createdAt + 1_000
                _ = fold.process(f, geofences: table, processingTime: now, events: &events)
            case let .command(c):
                now = c.createdAt + 1_000
                _ = fold.process(c, geofences: table, processingTime: now, events: &events)
            case .geofence: continue
            }
            fold.settle(geofences: table, processingTime: now, events: &events)
        }

        // Events: a few of every type.
        var perType: [EventType: Int] = [:]
        for event in events where perType[event.type, default: 0] < 4 {
            perType[event.type, default: 0] += 1
            var bytes: [UInt8] = []
            EventEncoder.encode(event, actualCreatedAt: event.createdAt + 1_500, into: &bytes)
            seeds[.event, default: []].append(bytes)
        }

        // State: timelines, history segments, checkpoints, a snapshot (as a file and as its content).
        let timelines = fold.allTimelines().map(\.parts)
        for parts in timelines { seeds[.timeline, default: []].append(TimelineCodec.encode(parts)) }
        for parts in timelines {
            for segment in store.all(of: parts.userId).prefix(3) {
                seeds[.segment, default: []].append(TimelineCodec.encode(segment))
            }
        }
        let checkpoints = [
            PartitionCheckpoint(locationsOffset: 0, commandsOffset: 0, streamTime: .min),
            PartitionCheckpoint(locationsOffset: 123_456, commandsOffset: 789, streamTime: settings.start + 600_000),
        ]
        seeds[.checkpoint] = checkpoints.map(\.bytes)
        for (i, count) in [0, 1, 3].enumerated() {
            let snapshot = PartitionSnapshot(
                partition: Int32(i), changelogOffset: Int64(1_000 * i), checkpoint: checkpoints[i % 2],
                timelines: Array(timelines.prefix(count)))
            let file = snapshot.encoded()
            seeds[.snapshot, default: []].append(file)
            if let content = try? LZ4Frame.decompress(file) { seeds[.snapshot, default: []].append(content) }
        }

        // LZ4 frames: records compressed fast and dense, an empty frame, two frames in a row.
        let text: [UInt8] = (seeds[.fix] ?? []).prefix(12).flatMap { $0 + [0x0A] }
        let frames = [
            LZ4Frame.compress(Array(text.prefix(300))), LZ4Frame.compress(text, level: 9), LZ4Frame.compress([]),
            LZ4Frame.compress(Array(text.prefix(40))) + LZ4Frame.compress(Array(text.prefix(80))),
        ]
        seeds[.lz4Frame] = frames

        // Dead letters: the invalid records of every kind rejected, as the service writes them.
        seeds[.deadLetter] = deadLetters(for: Array((seeds[.fix] ?? []).prefix(3)), receivedAt: settings.start)
        return seeds
    }

    /// Dead letters of `records` broken in the usual ways (each is rejected by a decoder).
    static func deadLetters(for records: [[UInt8]], receivedAt: UnixMillis) -> [[UInt8]] {
        var letters: [[UInt8]] = []
        var broken: [[UInt8]] = records.map { Array($0.dropLast()) }  // invalid JSON, valid UTF-8
        broken.append([0xFF, 0xFE, 0x00, 0x7B])  // not UTF-8: base64
        broken.append(Array(#"{"userId":"u","createdAt":"2013-07-01T00:00:53Z","latitude":91.2,"longitude":1}"#.utf8))
        for (i, value) in broken.enumerated() {
            let reason: DecodeError
            do {
                _ = try FixDecoder.decode(value)
                continue
            } catch {
                reason = error
            }
            let key: [UInt8]? = i % 3 == 2 ? nil : (i % 3 == 0 ? Array("user-\(i)".utf8) : [0xC3, 0x28])
            let letter = DeadLetter(
                reason, topic: "tripstream.locations", partition: Int32(i), offset: Int64(i * 1_000), key: key,
                value: value, receivedAt: receivedAt + Int64(i))
            var bytes: [UInt8] = []
            DeadLetterEncoder.encode(letter, into: &bytes)
            letters.append(bytes)
        }
        return letters
    }

    // MARK: - From the repository

    static func files(root: String) -> [FuzzTarget: [[UInt8]]] {
        var seeds: [FuzzTarget: [[UInt8]]] = [:]
        func add(_ target: FuzzTarget, lines path: String, every: Int = 1, limit: Int = 40) {
            guard let bytes = read("\(root)/\(path)") else { return }
            let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true)
            for (i, line) in lines.enumerated() where i % every == 0 && i / every < limit {
                seeds[target, default: []].append(Array(line))
            }
        }
        add(.fix, lines: "schemas/examples/fixes.ndjson")
        add(.fix, lines: "schemas/examples/invalid/fix.ndjson")
        add(.tripCommand, lines: "samples/porto/commands.ndjson", every: 6)
        add(.tripCommand, lines: "schemas/examples/trip-commands.ndjson")
        add(.tripCommand, lines: "schemas/examples/invalid/trip-command.ndjson")
        add(.geofence, lines: "samples/porto/geofences.ndjson", every: 6)
        add(.geofence, lines: "schemas/examples/geofences.ndjson")
        add(.geofence, lines: "schemas/examples/invalid/geofence.ndjson")
        add(.event, lines: "schemas/examples/events.ndjson")
        add(.event, lines: "schemas/examples/invalid/event.ndjson")
        for name in ["radar-entered-geofence", "radar-exited-geofence", "radar-updated-trip-webhook"] {
            if let bytes = read("\(root)/schemas/examples/\(name).json") { seeds[.event, default: []].append(bytes) }
        }
        add(.deadLetter, lines: "schemas/examples/dead-letters.ndjson")
        add(.deadLetter, lines: "schemas/examples/invalid/dead-letter.ndjson")
        // The real rides: every 100th fix; the compressed file's first frame bytes as a truncated frame.
        if let file = read("\(root)/samples/porto/fixes.ndjson.lz4") {
            seeds[.lz4Frame, default: []].append(Array(file.prefix(2_048)))
            if let text = try? LZ4Frame.decompress(file) {
                let lines = text.split(separator: 0x0A, omittingEmptySubsequences: true)
                for (i, line) in lines.enumerated() where i % 100 == 0 { seeds[.fix, default: []].append(Array(line)) }
                seeds[.lz4Frame, default: []].append(LZ4Frame.compress(Array(text.prefix(1_500))))
            }
        }
        return seeds
    }

    static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        return bytes
    }
}
