import Codec
import Domain
import Foundation
import KafkaIO
import LZ4IO
@testable import Runtime
import Testing

@Suite("Replay of the topics", .serialized, .timeLimit(.minutes(5)))
struct HistoryReplayTests {
    private static func options(_ cluster: MockCluster, since: Int64 = 0, out: String) -> HistoryReplayOptions {
        HistoryReplayOptions(source: .brokers(cluster.clientConfiguration), since: since,
                             destination: .files(directory: out, compressed: false), settings: FoldSettings())
    }

    private static func contents(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// Each partition is folded as `replay --partitions 1` folds a file of its records: the outputs are those
    /// files' outputs, partition after partition, byte for byte. A selection folds only its partitions.
    @Test func theOutputsAreAFileReplayOfEachPartitionInTurn() throws {
        let harness = try KafkaRuntimeHarness(users: 12, geofences: 20, minutes: 4)
        try harness.publish()
        _ = try harness.replayedEvents()  // writes <stateRoot>/replay/out-P, each partition's file replay
        let outputs = ["events", "eta", "dead-letters", "trip-summaries"]
        func filesReplay(_ partitions: [Int32]) throws -> [Data] {
            try outputs.map { name in
                try partitions.reduce(into: Data()) {
                    $0 += try Self.contents(harness.stateRoot + "/replay/out-\($1)/\(name).ndjson")
                }
            }
        }
        let out = harness.stateRoot + "/history"
        let summary = try HistoryReplayJob.run(Self.options(harness.cluster, out: out))
        #expect(summary.partitions == [0, 1, 2, 3])
        #expect(summary.replay.fold.fixes + summary.replay.fold.commands == harness.inputCount)
        let all = try outputs.map { try Self.contents(out + "/\($0).ndjson") }
        #expect(!all[0].isEmpty)
        #expect(all == (try filesReplay([0, 1, 2, 3])))

        var compressed = Self.options(harness.cluster, out: harness.stateRoot + "/compressed")
        compressed.destination = .files(directory: harness.stateRoot + "/compressed", compressed: true)
        _ = try HistoryReplayJob.run(compressed)
        var decompressed = Data()
        try LineReader(path: harness.stateRoot + "/compressed/events.ndjson.lz4").forEachLine(onLineTooLong: { _ in }) {
            decompressed += Data($0.bytes) + Data([0x0A])
        }
        #expect(decompressed == all[0])

        var selected = Self.options(harness.cluster, out: harness.stateRoot + "/selected")
        selected.partitions = [1, 3]
        #expect(try HistoryReplayJob.run(selected).partitions == [1, 3])
        let some = try outputs.map { try Self.contents(harness.stateRoot + "/selected/\($0).ndjson") }
        #expect(some == (try filesReplay([1, 3])))
    }

    /// `replay --archive` over what `tripstream archive` copied writes the files `replay --brokers` writes, for all
    /// partitions, for a selection, and from a --since in the middle (the mock's timestamp search on one side, the
    /// archive's timestamps on the other).
    @Test func anArchiveReplaysAsTheTopicsDo() throws {
        let harness = try KafkaRuntimeHarness(users: 12, geofences: 20, minutes: 6)
        try harness.publish(fraction: 0...0.5)
        Thread.sleep(forTimeInterval: 0.05)
        let middle = WallClock.now()
        Thread.sleep(forTimeInterval: 0.05)
        try harness.publish(fraction: 0.5...1)
        let directory = harness.stateRoot + "/archive"
        var archive = ArchiveOptions(kafka: harness.cluster.clientConfiguration, directory: directory)
        archive.untilEnd = true
        archive.maxRecordsPerFile = 300  // several files per partition
        _ = try Archiver(options: archive, reader: try Archiver.makeReader(archive), log: { _ in }).run(shouldStop: { false })

        for (since, partitions) in [(Int64(0), nil), (0, [0, 2] as [Int32]?), (middle, nil)] {
            var outputs: [[Data]] = []
            for source in [HistoryReplayOptions.Source.brokers(harness.cluster.clientConfiguration), .archive(directory)] {
                let out = harness.stateRoot + "/out-\(outputs.count)"
                var options = HistoryReplayOptions(source: source, since: since,
                                                   destination: .files(directory: out, compressed: false),
                                                   settings: FoldSettings())
                options.partitions = partitions
                let summary = try HistoryReplayJob.run(options)
                #expect(summary.partitions == partitions ?? [0, 1, 2, 3])
                #expect(summary.replay.fold.fixes > 0)
                outputs.append(try ["events", "eta", "dead-letters", "trip-summaries"].map {
                    try Self.contents(out + "/\($0).ndjson")
                })
            }
            #expect(!outputs[0][0].isEmpty)
            #expect(outputs[0] == outputs[1], "since \(since), partitions \(partitions ?? [])")
        }
    }

    /// --threads folds the partitions side by side, each into a spool handed to the sink in partition order: the
    /// files are byte-identical on 1 and 3 threads, from the topics and from an archive, plain and compressed,
    /// with the same counts, and no spool is left behind.
    @Test func theOutputsAreTheSameOnOneAndThreeThreads() throws {
        let harness = try KafkaRuntimeHarness(users: 12, geofences: 20, minutes: 4)
        try harness.publish()
        let archive = harness.stateRoot + "/archive"
        var archiving = ArchiveOptions(kafka: harness.cluster.clientConfiguration, directory: archive)
        archiving.untilEnd = true
        _ = try Archiver(options: archiving, reader: try Archiver.makeReader(archiving), log: { _ in })
            .run(shouldStop: { false })
        for source in [HistoryReplayOptions.Source.brokers(harness.cluster.clientConfiguration), .archive(archive)] {
            for compressed in [false, true] {
                var outputs: [[Data]] = []
                var summaries: [HistoryReplaySummary] = []
                for threads in [1, 3] {
                    let out = harness.stateRoot + "/out-\(outputs.count)-\(compressed)"
                    var options = HistoryReplayOptions(source: source, since: 0,
                                                       destination: .files(directory: out, compressed: compressed),
                                                       settings: FoldSettings())
                    options.threads = threads
                    summaries.append(try HistoryReplayJob.run(options))
                    outputs.append(try ["events", "eta", "dead-letters", "trip-summaries"].map {
                        try Self.contents(out + "/\($0).ndjson" + (compressed ? ".lz4" : ""))
                    })
                    #expect(!FileManager.default.fileExists(atPath: out + "/.history"), "spools and history removed")
                }
                #expect(!outputs[0][0].isEmpty)
                #expect(outputs[0] == outputs[1], "\(source), compressed: \(compressed)")
                #expect(summaries[0].replay.processor == summaries[1].replay.processor)
                #expect(summaries[0].replay.fold.events == summaries[1].replay.fold.events)
                #expect(summaries[0].replay.fold.fixes + summaries[0].replay.fold.commands == harness.inputCount)
            }
        }
    }

    /// A spool gives back the records written to it, keys included, stream by stream in order, in batches.
    @Test func aSpoolReadsBackWhatWasWritten() throws {
        let path = NSTemporaryDirectory() + "tripstream-spool-\(UUID().uuidString)"
        let spool = try OutputSpool(path: path)
        var written: [[String]] = [[], [], [], []]
        var batch = OutputBatch(newlineSeparated: true)
        for index in 0..<3_000 {
            let value = "{\"n\":\(index),\"pad\":\"\(String(repeating: "x", count: index % 700))\"}"
            let key = index % 5 == 0 ? "" : "user-\(index % 17)"
            let stream = index % 4
            switch stream {
            case 0: batch.events.append(key: key) { $0.append(contentsOf: value.utf8) }
            case 1: batch.eta.append(key: key) { $0.append(contentsOf: value.utf8) }
            case 2: batch.deadLetters.append(key: key) { $0.append(contentsOf: value.utf8) }
            default: batch.tripSummaries.append(key: key) { $0.append(contentsOf: value.utf8) }
            }
            written[stream].append(key + " " + value)
            if index % 500 == 499 { try spool.write(&batch) }
        }
        try spool.close()
        var read: [[String]] = [[], [], [], []]
        var batches = 0
        try OutputSpool.drain(path, batchBytes: 64 << 10) { batch in
            batches += 1
            for (stream, buffer) in [batch.events, batch.eta, batch.deadLetters, batch.tripSummaries].enumerated() {
                buffer.forEach { key, value in
                    read[stream].append(String(decoding: key, as: UTF8.self) + " " + String(decoding: value, as: UTF8.self))
                }
            }
            batch.removeAll()
        }
        #expect(read == written)
        #expect(batches > 1)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// `--geofences FILE` with the topics: the file's table replaces the topic's for the whole run. A file that
    /// drops a geofence with events and adds a copy of another under a new id removes the first one's events and
    /// adds the copy's entries and exits (what `tripstream diff` reports), and the replay is a file replay of each
    /// partition with the same file, in turn.
    @Test func aGeofencesFileReplacesTheTopicsTable() throws {
        let harness = try KafkaRuntimeHarness(users: 12, geofences: 20, minutes: 6)
        try harness.publish()
        _ = try harness.replayedEvents()  // <stateRoot>/replay: each partition's fixes and commands as files
        let replay = harness.stateRoot + "/replay"
        let base = harness.stateRoot + "/base"
        _ = try HistoryReplayJob.run(Self.options(harness.cluster, out: base))
        let baseEvents = try EventDiff.readEvents(path: base + "/events.ndjson")
        func key(_ geofence: Geofence) -> String { "\(geofence.tag)/\(geofence.externalId)" }
        func visits(_ events: [Event], _ geofence: String) -> [String] {
            events.filter { [.enteredGeofence, .exitedGeofence].contains($0.type) }
                .filter { $0.geofence.map { "\($0.tag)/\($0.externalId)" } == geofence }
                .map { "\($0.userId) \($0.type) \($0.createdAt)" }.sorted()
        }
        let visited = harness.geofences.filter { !visits(baseEvents, key($0)).isEmpty }
        try #require(visited.count >= 2)
        let dropped = visited[0], copied = visited[1]
        let copyKey = "\(copied.tag)/what-if-copy"
        func line(_ geofence: Geofence) -> [UInt8] {
            var line: [UInt8] = []
            InputRecordEncoder.encode(geofence, into: &line)
            return line
        }
        let copy = String(decoding: line(copied), as: UTF8.self)
            .replacingOccurrences(of: "\"externalId\":\"\(copied.externalId)\"", with: "\"externalId\":\"what-if-copy\"")
        let lines = harness.geofences.filter { $0 !== dropped }.map(line) + [Array(copy.utf8)]
        let file = replay + "/what-if-geofences.ndjson"
        _ = try NDJSONFile.write(lines, to: file)

        var whatIf = Self.options(harness.cluster, out: harness.stateRoot + "/what-if")
        whatIf.geofencesPath = file
        let summary = try HistoryReplayJob.run(whatIf)
        #expect(summary.replay.geofences == harness.geofences.count)
        #expect(summary.geofencesUnknownBefore.isEmpty)
        let whatIfEvents = try EventDiff.readEvents(path: harness.stateRoot + "/what-if/events.ndjson")
        let diff = EventDiff(before: baseEvents, after: whatIfEvents)
        #expect((diff.byGeofence[key(dropped)]?.removed ?? 0) > 0)
        #expect(visits(whatIfEvents, key(dropped)).isEmpty)
        #expect((diff.byGeofence[copyKey]?.added ?? 0) >= visits(baseEvents, key(copied)).count)
        #expect(diff.byGeofence[copyKey]?.removed == 0)
        // The copy is entered and left exactly as its original, and every other geofence as before: only ids of
        // later visits may differ (an id counts the user's visits, the copy's included).
        #expect(visits(whatIfEvents, copyKey) == visits(baseEvents, key(copied)))
        for geofence in harness.geofences where geofence !== dropped {
            #expect(visits(whatIfEvents, key(geofence)) == visits(baseEvents, key(geofence)), "\(key(geofence))")
        }

        var files: [Data] = [Data(), Data(), Data(), Data()]
        let outputs = ["events", "eta", "dead-letters", "trip-summaries"]
        for partition in 0..<KafkaRuntimeHarness.partitions {
            let out = replay + "/what-if-\(partition)"
            var options = ReplayOptions(geofencesPath: file, commandsPath: replay + "/commands-\(partition).ndjson",
                                        fixesPath: replay + "/fixes-\(partition).ndjson", outputDirectory: out,
                                        settings: FoldSettings())
            options.partitions = 1
            _ = try ReplayJob.run(options)
            for (index, name) in outputs.enumerated() { files[index] += try Self.contents(out + "/\(name).ndjson") }
        }
        #expect(try outputs.map { try Self.contents(harness.stateRoot + "/what-if/\($0).ndjson") } == files)

        // A file that cannot be read fails the replay before any output is opened.
        var missing = Self.options(harness.cluster, out: harness.stateRoot + "/missing")
        missing.geofencesPath = replay + "/no-such-geofences.ndjson"
        #expect(throws: (any Error).self) { try HistoryReplayJob.run(missing) }
        #expect(!FileManager.default.fileExists(atPath: harness.stateRoot + "/missing"))
    }

    /// A replay of history reads with an assign-based reader: the service's committed offsets, its changelog
    /// and its output topics are exactly as they were.
    @Test func theServicesOffsetsChangelogAndOutputsAreUntouched() throws {
        let harness = try KafkaRuntimeHarness(users: 8, geofences: 10, minutes: 3)
        try harness.publish()
        let service = harness.start(instance: "a")
        #expect(harness.waitUntilConsumed([service], atLeast: harness.inputCount))
        #expect(service.halt())
        let topics = harness.topics
        let inputs = topics.inputs.flatMap { topic in
            (0..<KafkaRuntimeHarness.partitions).map { TopicPartition(topic: topic, partition: $0) }
        }
        let written = ([topics.stateChangelog] + topics.outputs).flatMap { topic in
            (0..<KafkaRuntimeHarness.partitions).map { TopicPartition(topic: topic, partition: $0) }
        }
        // The mock keeps no offsets committed in a transaction (TxnOffsetCommit), and refuses plain commits to the
        // group of a live static member: the service's group here is "tripstream", the default, with offsets
        // committed the plain way.
        func consumer(group: String) throws -> KafkaConsumer {
            var configuration = harness.cluster.clientConfiguration
            configuration["group.id"] = group
            return try KafkaConsumer(configuration: configuration)
        }
        let committer = try consumer(group: "tripstream")
        try committer.commit(inputs.enumerated().map { TopicPartitionOffset($0.element, offset: Int64($0.offset + 1)) })
        try committer.close()
        func snapshot() throws -> (committed: [TopicPartition: Int64], own: [TopicPartition: Int64],
                                   ends: [TopicPartition: Int64])
        {
            let service = try consumer(group: "tripstream"), replay = try consumer(group: "tripstream-replay")
            let probe = try KafkaReader(configuration: harness.cluster.clientConfiguration)
            defer {
                try? service.close()
                try? replay.close()
                try? probe.close()
            }
            return (try service.committed(inputs, timeout: .seconds(10)), try replay.committed(inputs, timeout: .seconds(10)),
                    try probe.endOffsets(written, timeout: .seconds(10)))
        }
        let before = try snapshot()
        #expect(before.committed.count == inputs.count)
        #expect(before.ends.values.reduce(0, +) > 0)

        let summary = try HistoryReplayJob.run(Self.options(harness.cluster, out: harness.stateRoot + "/history"))
        #expect(summary.replay.fold.events > 0)
        // To topics under a prefix: created, filled with the same events; an empty prefix is refused.
        var sandbox = Self.options(harness.cluster, out: "")
        sandbox.destination = .topics(prefix: "sandbox.", kafka: harness.cluster.clientConfiguration)
        sandbox.stateDirectory = harness.stateRoot + "/sandbox-history"
        _ = try HistoryReplayJob.run(sandbox)
        sandbox.destination = .topics(prefix: "", kafka: harness.cluster.clientConfiguration)
        #expect(throws: ReplayError.self) { try HistoryReplayJob.run(sandbox) }
        let after = try snapshot()
        #expect(after.committed == before.committed)
        #expect(after.own.isEmpty, "the replay's own group id commits nothing either")
        #expect(after.ends == before.ends)

        let probe = try KafkaReader(configuration: harness.cluster.clientConfiguration)
        defer { try? probe.close() }
        let sandboxEvents = try probe.endOffsets(
            (0..<KafkaRuntimeHarness.partitions).map { TopicPartition(topic: "sandbox." + topics.events, partition: $0) },
            timeout: .seconds(10))
        let lines = try String(contentsOfFile: harness.stateRoot + "/history/events.ndjson", encoding: .utf8)
            .split(separator: "\n").count
        #expect(sandboxEvents.values.reduce(0, +) == Int64(lines))
    }

    /// --since and --until select records by Kafka timestamp, and the geofence table is the one in force at each
    /// record's timestamp: a geofence published at 5.5 s is entered by the first fix stamped after it.
    @Test func sinceUntilAndTheGeofenceTableFollowRecordTimestamps() throws {
        let cluster = try MockCluster(brokerCount: 1)
        let topics = Topics()
        // Record timestamps a second after each fix was taken, as a producer stamps them (one far
        // ahead of its timestamp would be a wrong device clock: `future_timestamp`).
        let base: Int64 = 1_767_600_000_000  // 2026-01-05T08:00:00Z
        for topic in [topics.locations, topics.tripCommands, topics.geofences] { try cluster.createTopic(topic, partitions: 1) }
        let producer = try KafkaProducer(configuration: cluster.clientConfiguration)
        let geofence = #"{"tag":"store","externalId":"s1","description":"S1","type":"circle","coordinates":[-8.61,41.15],"radius":100,"enabled":true}"#
        try producer.produce(topic: topics.geofences, key: Array("store/s1".utf8), value: Array(geofence.utf8),
                             timestamp: base + 5_500)
        for second in 1...10 {
            let fix = #"{"userId":"u1","createdAt":"2026-01-05T08:00:0\#(second - 1).000Z","latitude":41.15,"longitude":-8.61,"accuracy":10,"deviceId":"d1"}"#
            try producer.produce(topic: topics.locations, key: Array("u1".utf8), value: Array(fix.utf8),
                                 timestamp: base + Int64(second) * 1_000)
        }
        #expect(try producer.flush(timeout: .seconds(10)).allDelivered)
        let root = NSTemporaryDirectory() + "tripstream-history-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }

        func entered(since: Int64, until: Int64? = nil) throws -> (fixes: Int, entries: [String]) {
            var options = Self.options(cluster, since: base + since, out: root + "/\(since)")
            options.until = until.map { base + $0 }
            let summary = try HistoryReplayJob.run(options)
            let text = try String(contentsOfFile: root + "/\(since)/events.ndjson", encoding: .utf8)
            let entries = try text.split(separator: "\n").map { try EventDecoder.decode(Array($0.utf8)).event }
                .filter { $0.type == .enteredGeofence }.map { RFC3339.string($0.createdAt) }
            return (summary.replay.fold.fixes, entries)
        }
        // Fix n (n = 1…10) is stamped base + n s and created at 08:00:0(n-1).
        #expect(try entered(since: 0) == (10, ["2026-01-05T08:00:05.000Z"]))
        #expect(try entered(since: 3_000, until: 8_000) == (5, ["2026-01-05T08:00:05.000Z"]))
        #expect(try entered(since: 3_001, until: 8_001) == (5, ["2026-01-05T08:00:05.000Z"]))
        #expect(try entered(since: 7_000) == (4, ["2026-01-05T08:00:06.000Z"]))
        #expect(try entered(since: 11_000) == (0, []))
    }

    /// Record keys are checked as `run` checks them: a fix or a trip command keyed by another user than its own
    /// is dead-lettered `key_mismatch`, naming its partition and offset, from the topics and from an archive.
    @Test func recordsKeyedByAnotherUserAreDeadLettered() throws {
        let cluster = try MockCluster(brokerCount: 1)
        let topics = Topics()
        for topic in [topics.locations, topics.tripCommands, topics.geofences] { try cluster.createTopic(topic, partitions: 1) }
        let producer = try KafkaProducer(configuration: cluster.clientConfiguration)
        for (second, key) in [(0, "u1"), (1, "u2"), (2, "u1")] {
            let fix = #"{"userId":"u1","createdAt":"2026-01-05T08:00:0\#(second).000Z","latitude":41.15,"longitude":-8.61,"accuracy":10}"#
            try producer.produce(topic: topics.locations, key: Array(key.utf8), value: Array(fix.utf8))
        }
        let command = #"{"type":"start","userId":"u1","createdAt":"2026-01-05T08:00:00.500Z","trip":{"externalId":"t1","destinationGeofenceTag":"store","destinationGeofenceExternalId":"s1"}}"#
        try producer.produce(topic: topics.tripCommands, key: Array("u3".utf8), value: Array(command.utf8))
        #expect(try producer.flush(timeout: .seconds(10)).allDelivered)
        try Self.replayTopicsAndTheirArchive(cluster) { summary, out in
            #expect(summary.replay.fold.fixes == 2)
            #expect(summary.replay.processor.deadLetters[.keyMismatch] == 2)
            let letters = try String(contentsOfFile: out + "/dead-letters.ndjson", encoding: .utf8).split(separator: "\n")
            #expect(letters.count == 2)
            #expect(letters.allSatisfy { $0.contains("key_mismatch") })
            #expect(letters.contains { $0.contains(topics.locations) && $0.contains("\"offset\":1") })
            #expect(letters.contains { $0.contains(topics.tripCommands) && $0.contains("\"offset\":0") })
        }
    }

    /// Archives the cluster's topics, then replays the topics and the archive into files, each run handed to
    /// `check` with its output directory.
    private static func replayTopicsAndTheirArchive(
        _ cluster: MockCluster, _ check: (HistoryReplaySummary, String) throws -> Void
    ) throws {
        let root = NSTemporaryDirectory() + "tripstream-history-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        var archive = ArchiveOptions(kafka: cluster.clientConfiguration, directory: root + "/archive")
        archive.untilEnd = true
        _ = try Archiver(options: archive, reader: try Archiver.makeReader(archive), log: { _ in }).run(shouldStop: { false })
        for (source, out) in [(HistoryReplayOptions.Source.brokers(cluster.clientConfiguration), root + "/from-topics"),
                              (.archive(root + "/archive"), root + "/from-archive")] {
            try check(try HistoryReplayJob.run(HistoryReplayOptions(
                source: source, since: 0, destination: .files(directory: out, compressed: false),
                settings: FoldSettings())), out)
        }
    }

    /// A fix or command with a null value (a tombstone) is dead-lettered as such by a replay of the topics or of
    /// their archive, as the service does, not as an empty record.
    @Test func tombstonesAreDeadLetteredAsTombstones() throws {
        let cluster = try MockCluster(brokerCount: 1)
        let topics = Topics()
        for topic in [topics.locations, topics.tripCommands, topics.geofences] { try cluster.createTopic(topic, partitions: 1) }
        let producer = try KafkaProducer(configuration: cluster.clientConfiguration)
        let fix = #"{"userId":"u1","createdAt":"2026-01-05T08:00:00.000Z","latitude":41.15,"longitude":-8.61,"accuracy":10}"#
        try producer.produce(topic: topics.locations, key: Array("u1".utf8), value: Array(fix.utf8))
        try producer.produce(topic: topics.locations, key: Array("u1".utf8), value: nil)
        try producer.produce(topic: topics.tripCommands, key: Array("u1".utf8), value: nil)
        #expect(try producer.flush(timeout: .seconds(10)).allDelivered)
        try Self.replayTopicsAndTheirArchive(cluster) { summary, out in
            #expect(summary.replay.fold.fixes == 1)
            #expect(summary.replay.processor.deadLetters[.notAnObject] == 2, "\(out)")
            let letters = try String(contentsOfFile: out + "/dead-letters.ndjson", encoding: .utf8).split(separator: "\n")
            #expect(letters.count == 2)
            #expect(letters.allSatisfy { $0.contains("not_an_object") && $0.contains("tombstone") && $0.contains(#""key":"u1""#) },
                    "\(letters)")
            #expect(letters.contains { $0.contains(topics.locations) && $0.contains("\"offset\":1") })
            #expect(letters.contains { $0.contains(topics.tripCommands) && $0.contains("\"offset\":0") })
        }
    }

    /// Keys whose earliest surviving record is later than the start, with offsets missing before it in their
    /// partition, are reported: what the table held for them before is lost. A partition that lost nothing
    /// before a key's first record says the key did not exist.
    @Test func compactionLossesAreTheKeysFirstSeenAfterMissingOffsets() {
        let value = Array(#"{"tag":"a","externalId":"1","type":"circle","coordinates":[0,0],"radius":10}"#.utf8)
        func record(_ partition: Int32, _ offset: Int64, _ timestamp: Int64, _ key: String) -> GeofenceTimeline.Record {
            GeofenceTimeline.Record(timestamp: timestamp, partition: partition, offset: offset,
                                    key: Array(key.utf8), value: key == "a/1" ? value : nil)
        }
        var processor = InputProcessor(settings: FoldSettings())
        var output = OutputBatch(newlineSeparated: true)
        let timeline = GeofenceTimeline(
            records: [record(0, 0, 50, "b/early"), record(0, 1, 200, "b/new"), record(1, 3, 300, "a/1"),
                      record(1, 4, 400, "b/late")],
            start: 100, topic: "geofences", processor: &processor, output: &output)
        #expect(timeline.unknownBefore.map(\.key) == ["a/1", "b/late"])
        #expect(timeline.changes.map(\.timestamp) == [50, 200, 300, 400])
        var cursor = GeofenceTimeline.Cursor(timeline)
        var table = GeofenceTable()
        cursor.advance(to: 299, table: &table)
        #expect(table.count == 0)
        cursor.advance(to: 300, table: &table)
        #expect(table.count == 1)
    }

    /// What the archiver writes reads back: offset, timestamp, key unescaped, value as written (null: nil).
    @Test func archiveLinesReadBack() {
        var buffer: [UInt8] = []
        ArchiveLine.append(offset: 42, timestamp: -1, key: Array("q\"uo\\te".utf8), value: Array("{\"a\":\n1}".utf8),
                           to: &buffer)
        ArchiveLine.append(offset: 7, timestamp: 1_780_444_800_000, key: nil, value: [], to: &buffer)
        let lines = buffer.split(separator: UInt8(ascii: "\n")).map(Array.init)
        #expect(lines.count == 2)
        lines[0].withUnsafeBytes { bytes in
            let line = ArchiveLine.parse(bytes)
            #expect(line?.offset == 42 && line?.timestamp == -1)
            #expect(line?.keyBytes == Array("q\"uo\\te".utf8))
            #expect(line?.value.map { Array($0) } == Array("{\"a\": 1}".utf8))
        }
        lines[1].withUnsafeBytes { bytes in
            let line = ArchiveLine.parse(bytes)
            #expect(line?.offset == 7 && line?.timestamp == 1_780_444_800_000)
            #expect(line?.keyBytes == nil && line?.value == nil)
        }
        for bad in ["", "{}", "{\"offset\":1,\"timestamp\":2,\"key\":null}", "{\"offset\":1,\"key\":null,\"value\":{}}", "{\"n\":1}"] {
            Array(bad.utf8).withUnsafeBytes { #expect(ArchiveLine.parse($0) == nil) }
        }
    }

    @Test func partitionSelectionsAreListsAndRanges() throws {
        #expect(try PartitionSelection.parse("0-5") == [0, 1, 2, 3, 4, 5])
        #expect(try PartitionSelection.parse("3") == [3])
        #expect(try PartitionSelection.parse("4-6,0,2,5") == [0, 2, 4, 5, 6])
        for bad in ["", "a", "3-1", "-2", "1,,2", "1-2-3"] {
            #expect(throws: ReplayError.self) { try PartitionSelection.parse(bad) }
        }
    }
}
