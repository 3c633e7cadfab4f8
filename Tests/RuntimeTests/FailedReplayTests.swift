import Codec
import Domain
import Foundation
import KafkaIO
@testable import Runtime
import Testing

/// A replay's outputs replace the previous run's only when complete: a run that fails leaves them byte-identical
/// and no unfinished file beside them (`StagedOutputs`).
@Suite(.serialized, .timeLimit(.minutes(5))) struct FailedReplayTests {
    static let outputs = ["events", "eta", "dead-letters", "trip-summaries"].map { $0 + ".ndjson" }

    /// The directory's files (hidden ones too) and their bytes.
    static func snapshot(_ directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory)
            files[name] = isDirectory.boolValue ? Data() : try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
        }
        return files
    }

    static func withDirectory(_ body: (String) throws -> Void) throws {
        let directory = NSTemporaryDirectory() + "tripstream-failed-replay-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try ReplayJob.makeDirectory(directory)
        try body(directory)
    }

    @Test func aFileReplayWhoseInputIsMissingLeavesThePreviousOutputsAsTheyWere() throws {
        try Self.withDirectory { directory in
            let inputs = try ReplayThreadsTests.writeInputs(in: directory)
            let out = directory + "/out"
            var options = ReplayOptions(geofencesPath: inputs.geofences, commandsPath: inputs.commands,
                                        fixesPath: inputs.fixes, outputDirectory: out, settings: FoldSettings())
            _ = try ReplayJob.run(options)
            let before = try Self.snapshot(out)
            #expect(Set(before.keys) == Set(Self.outputs))
            #expect(before["events.ndjson"]?.isEmpty == false && before["dead-letters.ndjson"]?.isEmpty == false)

            options.fixesPath = directory + "/nosuch.ndjson"
            #expect(throws: (any Error).self) { try ReplayJob.run(options) }
            #expect(try Self.snapshot(out) == before)

            // A run that completes replaces them (here by an empty fleet's).
            try NDJSONFile.write([], to: directory + "/empty.ndjson")
            options.fixesPath = directory + "/empty.ndjson"
            options.commandsPath = nil
            _ = try ReplayJob.run(options)
            let after = try Self.snapshot(out)
            #expect(Set(after.keys) == Set(Self.outputs))
            #expect(after["events.ndjson"]?.isEmpty == true)
        }
    }

    /// The brokers gone in the middle of a replay of the topics: the error comes out of the source after some
    /// partitions' outputs were written; the previous outputs stay, on one thread and on two (spooled).
    @Test(arguments: [1, 2]) func aHistoryReplayFailingMidRunLeavesThePreviousOutputsAsTheyWere(threads: Int) throws {
        try Self.withDirectory { directory in
            let inputs = try ReplayThreadsTests.writeInputs(in: directory)
            let lines = try String(contentsOfFile: inputs.fixes, encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
            let out = directory + "/out"
            var options = HistoryReplayOptions(source: .archive(directory), since: 0,
                                               destination: .files(directory: out, compressed: false),
                                               settings: FoldSettings())
            options.geofencesPath = inputs.geofences
            options.threads = threads
            let partitions: [Int32] = [0, 1, 2]
            _ = try HistoryReplayJob.run(options, source: LinesSource(lines: lines, partitions: partitions, failAt: nil),
                                         partitions: partitions, log: { _ in }, progress: { _ in })
            let before = try Self.snapshot(out)
            #expect(Set(before.keys) == Set(Self.outputs))
            #expect(before["events.ndjson"]?.isEmpty == false)

            let failing = LinesSource(lines: lines, partitions: partitions, failAt: (partition: 2, line: lines.count / 2))
            #expect(throws: KafkaError.self) {
                try HistoryReplayJob.run(options, source: failing, partitions: partitions, log: { _ in }, progress: { _ in })
            }
            #expect(try Self.snapshot(out) == before)
        }
    }

    @Test func stagedOutputsArePublishedTogetherOrRemoved() throws {
        try Self.withDirectory { directory in
            let paths = [directory + "/a.ndjson", directory + "/b.ndjson"]
            try NDJSONFile.write([Array("old".utf8)], to: paths[0])
            do {
                let staged = StagedOutputs(paths: paths)
                #expect(staged.temporaryPaths == [directory + "/.a.ndjson.incomplete", directory + "/.b.ndjson.incomplete"])
                for path in staged.temporaryPaths { try NDJSONFile.write([Array("new".utf8)], to: path) }
                // Dropped unpublished (a throw on the way): the new files go, the old one stays.
            }
            #expect(try Self.snapshot(directory) == ["a.ndjson": Data("old\n".utf8)])

            let staged = StagedOutputs(paths: paths)
            for path in staged.temporaryPaths { try NDJSONFile.write([Array("new".utf8)], to: path) }
            try staged.publish()
            #expect(try Self.snapshot(directory) == ["a.ndjson": Data("new\n".utf8), "b.ndjson": Data("new\n".utf8)])

            // What a termination signal's handler removes: the unfinished files of the runs in progress only
            // (`removeAll()` itself is not called here: it would remove other tests' files; CI sends SIGTERM).
            #expect(!UnfinishedOutputs.registeredPaths.contains { $0.hasPrefix(directory) })
            let running = StagedOutputs(paths: [directory + "/c.ndjson"])
            #expect(UnfinishedOutputs.registeredPaths.filter { $0.hasPrefix(directory) } == running.temporaryPaths)
            running.discard()
            #expect(!UnfinishedOutputs.registeredPaths.contains { $0.hasPrefix(directory) })
        }
    }

    /// A replay of files names each dead letter's file and line, and its offset is -1.
    @Test func aFileReplaysDeadLettersNameTheirFileAndLine() throws {
        try Self.withDirectory { directory in
            let inputs = try ReplayThreadsTests.writeInputs(in: directory)
            let options = ReplayOptions(geofencesPath: inputs.geofences, commandsPath: inputs.commands,
                                        fixesPath: inputs.fixes, outputDirectory: directory + "/out",
                                        settings: FoldSettings())
            _ = try ReplayJob.run(options)
            let text = try String(contentsOfFile: directory + "/out/dead-letters.ndjson", encoding: .utf8)
            let letters = try text.split(separator: "\n").map { try DeadLetterDecoder.decode(Array($0.utf8)) }
            let fixLines = try String(contentsOfFile: inputs.fixes, encoding: .utf8).split(separator: "\n",
                                                                                           omittingEmptySubsequences: false)
            let bad = #"{"userId":"driver-1","latitude":"north"}"#
            let invalid = try #require(letters.first { $0.value == Array(bad.utf8) })
            #expect(invalid.file == inputs.fixes && invalid.offset == -1 && invalid.topic == ReplayJob.fixesTopic)
            let line = try #require(invalid.line)
            #expect(fixLines[Int(line) - 1] == bad)
            #expect(letters.allSatisfy { $0.file != nil && $0.line != nil && $0.offset == -1 })
            #expect(!text.contains("1970-"))
        }
    }

    /// The dev broker drops a partition's oldest records past 5 MiB: a replay from before them says so.
    @Test func aReplayFromBeforeTheLogsStartReportsTheCut() throws {
        let cluster = try MockCluster(brokerCount: 1)
        let topics = Topics()
        try cluster.createTopic(topics.locations, partitions: 2)
        let producer = try KafkaProducer(configuration: cluster.clientConfiguration)
        let padding = String(repeating: "x", count: 1_000)
        for index in 0..<7_000 {  // 7 MB into partition 0, a few records into partition 1
            let value = Array(#"{"userId":"u\#(index)","pad":"\#(padding)"}"#.utf8)
            try producer.produce(topic: topics.locations, partition: index % 1_000 == 0 ? 1 : 0, key: nil, value: value)
        }
        #expect(try producer.flush(timeout: .seconds(30)).allDelivered)
        try Self.withDirectory { directory in
            try NDJSONFile.write([], to: directory + "/geofences.ndjson")
            var options = HistoryReplayOptions(source: .brokers(cluster.clientConfiguration), since: 1,
                                               destination: .files(directory: directory + "/out", compressed: false),
                                               settings: FoldSettings())
            options.geofencesPath = directory + "/geofences.ndjson"
            let summary = try HistoryReplayJob.run(options)
            #expect(summary.cuts.count == 1)
            let cut = try #require(summary.cuts.first)
            #expect(cut.topic == topics.locations && cut.partition == 0)
            #expect(cut.firstOffset > 0 && cut.firstOffset < 7_000 && cut.firstTimestamp > 1)
        }
    }
}

/// Fix lines as the records of a replay of history, split over partitions by line, failing as a lost broker
/// does when asked for `failAt`'s partition past its line.
private final class LinesSource: ReplayRecordSource {
    let lines: [[UInt8]]
    let partitions: [Int32]
    let failAt: (partition: Int32, line: Int)?
    let cuts: [HistoryCut] = []

    init(lines: [[UInt8]], partitions: [Int32], failAt: (partition: Int32, line: Int)?) {
        self.lines = lines
        self.partitions = partitions
        self.failAt = failAt
    }

    func geofenceRecords() throws -> [GeofenceTimeline.Record] { [] }

    func forEachRecord(_ stream: ReplayStream, partition: Int32,
                       _ body: (Int64, Int64, [UInt8]?, UnsafeRawBufferPointer?) throws -> Void) throws
    {
        guard stream == .fixes else { return }
        for (index, line) in lines.enumerated() where Int32(index % partitions.count) == partition {
            if let failAt, failAt.partition == partition, index >= failAt.line {
                throw KafkaError(code: .transport, message: "Local: Broker transport failure")
            }
            // Stamped after any fix was taken (2100), as a producer stamps records: never a wrong clock.
            try line.withUnsafeBytes { try body(Int64(index), 4_102_444_800_000 + Int64(index), nil, $0) }
        }
    }

    func copyForAnotherThread() throws -> any ReplayRecordSource { self }

    func recordEstimate(_ stream: ReplayStream, partition: Int32) -> Int64 { Int64(lines.count / partitions.count) }
}
