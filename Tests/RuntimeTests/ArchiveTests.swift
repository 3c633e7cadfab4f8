import Codec
import Domain
import Foundation
import KafkaIO
import LZ4IO
import Runtime
import Synchronization
import Testing

@Suite("Archive", .serialized, .timeLimit(.minutes(5)))
struct ArchiveTests {
    /// A mock cluster with the three input topics and an archive directory removed at the end.
    final class Setup {
        let cluster: MockCluster
        let topics = Topics()
        let directory = NSTemporaryDirectory() + "tripstream-archive-\(UUID().uuidString)"
        let producer: KafkaProducer

        init() throws {
            cluster = try MockCluster(brokerCount: 1)
            try cluster.createTopic(topics.locations, partitions: 3)
            try cluster.createTopic(topics.tripCommands, partitions: 3)
            try cluster.createTopic(topics.geofences, partitions: 2)
            producer = try KafkaProducer(configuration: cluster.clientConfiguration)
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        func publish(_ topic: String, partition: Int32, key: String?, value: String?, timestamp: Int64? = nil) throws {
            try producer.produce(topic: topic, partition: partition, key: key.map { Array($0.utf8) },
                                 value: value.map { Array($0.utf8) }, timestamp: timestamp)
        }

        func flush() throws {
            #expect(try producer.flush(timeout: .seconds(30)).allDelivered)
        }

        func options(maxRecords: Int = 1_000_000) -> ArchiveOptions {
            var options = ArchiveOptions(kafka: cluster.clientConfiguration, directory: directory)
            options.untilEnd = true
            options.maxRecordsPerFile = maxRecords
            return options
        }

        func archive(_ options: ArchiveOptions, abandonAfter: Int? = nil) throws -> ArchiveSummary {
            let archiver = try Archiver(options: options, reader: try Archiver.makeReader(options), log: { _ in })
            archiver._abandonAfterRecords = abandonAfter
            return try archiver.run(shouldStop: { false })
        }

        /// Every file under `folder`, relative to it ("date=…/name"), sorted.
        func files(_ folder: String) -> [String] {
            let base = directory + "/" + folder
            var found: [String] = []
            for date in (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [] {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: base + "/" + date)) ?? [] {
                    found.append(date + "/" + name)
                }
            }
            return found.sorted()
        }

        /// The record values of every finished file under `folder`, by file, read with `LineReader`: each line's
        /// bytes between `"value":` and its final `}`.
        func finishedValues(_ folder: String) throws -> [(name: ArchiveFileNameView, lines: [String])] {
            try finishedLines(folder).map { file in
                (file.name, file.lines.map { line in
                    guard let marker = line.range(of: ",\"value\":"), line.hasSuffix("}") else { return "" }
                    return String(line[marker.upperBound...].dropLast())
                })
            }
        }

        /// The lines of every finished file under `folder`, by file, read with `LineReader`.
        func finishedLines(_ folder: String) throws -> [(name: ArchiveFileNameView, lines: [String])] {
            var result: [(ArchiveFileNameView, [String])] = []
            for file in files(folder) {
                let name = String(file.split(separator: "/").last!)
                guard let view = ArchiveFileNameView(name) else { continue }
                var lines: [String] = []
                let reader = try LineReader(path: directory + "/" + folder + "/" + file)
                try reader.forEachLine(onLineTooLong: { _ in Issue.record("line too long") }) { line in
                    lines.append(String(decoding: line.bytes, as: UTF8.self))
                }
                result.append((view, lines))
            }
            return result
        }
    }

    /// `part-PPPPP-FIRST-NEXT.ndjson.lz4`, parsed independently of the archiver's own parser.
    struct ArchiveFileNameView {
        var partition: Int32, first: Int64, next: Int64
        init?(_ name: String) {
            guard name.hasPrefix("part-"), name.hasSuffix(".ndjson.lz4") else { return nil }
            let fields = name.dropFirst(5).dropLast(11).split(separator: "-").compactMap { Int64($0) }
            guard fields.count == 3 else { return nil }
            (partition, first, next) = (Int32(fields[0]), fields[1], fields[2])
        }
    }

    // MARK: - Tests

    @Test func aRestartInTheMiddleOfAFileArchivesEveryRecordExactlyOnce() throws {
        let setup = try Setup()
        var published: Set<String> = []
        for index in 0..<600 {
            let value = "{\"userId\":\"u\(index % 17)\",\"n\":\(index)}"
            published.insert(value)
            try setup.publish(setup.topics.locations, partition: Int32(index % 3), key: "u\(index % 17)", value: value)
        }
        try setup.flush()

        // First run: "crashes" after 250 records, in the middle of files of 40 records.
        let crashed = try setup.archive(setup.options(maxRecords: 40), abandonAfter: 250)
        #expect(crashed.abandoned)
        #expect(setup.files("locations").contains { $0.contains("/.part-") && $0.hasSuffix(".tmp") })
        let finishedBefore = try setup.finishedValues("locations").reduce(0) { $0 + $1.lines.count }
        #expect(finishedBefore < 250 && finishedBefore > 0)

        // Second run: deletes the leftovers, resumes from the file names, reads to the end.
        let resumed = try setup.archive(setup.options(maxRecords: 40))
        #expect(!resumed.abandoned)
        #expect(resumed.leftoversDeleted >= 1)
        #expect(resumed.records["locations"] == 600 - finishedBefore)
        #expect(!setup.files("locations").contains { $0.hasSuffix(".tmp") })

        let files = try setup.finishedValues("locations")
        let lines = files.flatMap(\.lines)
        #expect(lines.count == 600)
        #expect(Set(lines) == published)
        // Per partition the files tile the offsets 0..<200 without gap or overlap.
        for partition: Int32 in 0..<3 {
            let names = files.map(\.name).filter { $0.partition == partition }.sorted { $0.first < $1.first }
            var next: Int64 = 0
            for name in names {
                #expect(name.first == next)
                next = name.next
            }
            #expect(next == 200)
            #expect(files.filter { $0.name.partition == partition }.allSatisfy { $0.lines.count <= 40 })
        }

        // A third run with nothing new writes nothing; new records are appended after the old ones.
        #expect(try setup.archive(setup.options()).totalRecords == 0)
        try setup.publish(setup.topics.locations, partition: 1, key: "late", value: "{\"late\":true}")
        try setup.flush()
        let third = try setup.archive(setup.options())
        #expect(third.records["locations"] == 1)
        let after = try setup.finishedValues("locations").filter { $0.name.partition == 1 && $0.name.first == 200 }
        #expect(after.map(\.lines) == [["{\"late\":true}"]])
    }

    @Test func filesArePartitionedByTheRecordsUTCDate() throws {
        let setup = try Setup()
        let midnight: Int64 = 1_780_444_800_000  // 2026-06-03T00:00:00Z
        for index in 0..<40 {
            // Alternating dates within one partition: a file never spans two.
            let timestamp = index % 4 < 2 ? midnight - 1000 : midnight + 1000
            try setup.publish(setup.topics.tripCommands, partition: 2, key: "u", value: "{\"i\":\(index)}",
                              timestamp: timestamp)
        }
        try setup.flush()
        let summary = try setup.archive(setup.options())
        #expect(summary.records["trip-commands"] == 40)
        let files = setup.files("trip-commands")
        #expect(Set(files.map { String($0.split(separator: "/")[0]) }) == ["date=2026-06-02", "date=2026-06-03"])
        let values = try setup.finishedValues("trip-commands")
        for (file, content) in zip(files, values) {
            let indexes = content.lines.map { Int($0.dropFirst(5).dropLast())! }  // {"i":N}
            let expectedDay = file.hasPrefix("date=2026-06-02") ? 0 : 2
            #expect(!indexes.isEmpty && indexes.allSatisfy { $0 % 4 / 2 * 2 == expectedDay })
        }
        #expect(files.count == 20)  // the date changes every two records
    }

    @Test func geofenceLinesKeepKeysTimestampsAndDeletes() throws {
        let setup = try Setup()
        let value = "{\"tag\":\"depot\",\"externalId\":\"a\",\n \"description\":\"A\"}"
        try setup.publish(setup.topics.geofences, partition: 0, key: "depot/a", value: value, timestamp: 1_000)
        try setup.publish(setup.topics.geofences, partition: 0, key: "depot/a", value: nil, timestamp: 2_000)
        try setup.publish(setup.topics.geofences, partition: 0, key: "q\"uote", value: "", timestamp: 3_000)
        try setup.flush()
        _ = try setup.archive(setup.options())
        let files = try setup.finishedLines("geofences")
        #expect(files.map(\.name.partition) == [0])
        #expect(files.first?.lines == [
            "{\"offset\":0,\"timestamp\":1000,\"key\":\"depot/a\",\"value\":{\"tag\":\"depot\",\"externalId\":\"a\",  \"description\":\"A\"}}",
            "{\"offset\":1,\"timestamp\":2000,\"key\":\"depot/a\",\"value\":null}",
            "{\"offset\":2,\"timestamp\":3000,\"key\":\"q\\\"uote\",\"value\":null}",
        ])
        #expect(setup.files("geofences").first?.hasPrefix("date=1970-01-01/part-00000-000000000000-000000000003") == true)
        for line in files.first?.lines ?? [] {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil)
        }
    }

    @Test func lz4CommandLineToolReadsTheFiles() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/lz4") else { return }
        let setup = try Setup()
        for index in 0..<100 {
            try setup.publish(setup.topics.locations, partition: 0, key: "u", value: "{\"n\":\(index)}")
        }
        try setup.flush()
        _ = try setup.archive(setup.options())
        let file = try #require(setup.files("locations").first)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/lz4")
        process.arguments = ["-dc", setup.directory + "/locations/" + file]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let expected = try setup.finishedLines("locations").flatMap(\.lines).map { $0 + "\n" }.joined()
        #expect(String(decoding: output, as: UTF8.self) == expected)
        #expect(try setup.finishedValues("locations").flatMap(\.lines) == (0..<100).map { "{\"n\":\($0)}" })
    }

    /// The result of an archiver running on its own thread.
    final class Following: @unchecked Sendable {
        // Safe: `summary` and `failure` are written by the archiver's thread before `done` is signalled and read
        // only after waiting for it; `stop` is atomic.
        let stop = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        var summary: ArchiveSummary?
        var failure: (any Error)?
    }

    @Test func followingClosesIdleFilesAndFinishesTheOpenOnesOnStop() throws {
        let setup = try Setup()
        var options = setup.options()
        options.untilEnd = false
        options.idleClose = 300
        let following = Following()
        let thread = Thread { [options] in
            do {
                let archiver = try Archiver(options: options, reader: try Archiver.makeReader(options), log: { _ in })
                following.summary = try archiver.run(shouldStop: { following.stop.load(ordering: .relaxed) })
            } catch {
                following.failure = error
            }
            following.done.signal()
        }
        thread.start()
        for index in 0..<50 {
            try setup.publish(setup.topics.locations, partition: 0, key: "u", value: "{\"n\":\(index)}")
        }
        try setup.flush()
        // The idle file is finished while the archiver keeps following.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, (try setup.finishedValues("locations")).isEmpty { Thread.sleep(forTimeInterval: 0.1) }
        #expect(try setup.finishedValues("locations").map(\.lines.count) == [50])
        for index in 50..<80 {
            try setup.publish(setup.topics.locations, partition: 0, key: "u", value: "{\"n\":\(index)}")
        }
        try setup.flush()
        while Date() < deadline, !setup.files("locations").contains(where: { $0.hasSuffix(".tmp") }) {
            Thread.sleep(forTimeInterval: 0.02)
        }
        following.stop.store(true, ordering: .relaxed)  // what SIGTERM does in `tripstream archive`
        #expect(following.done.wait(timeout: .now() + 30) == .success)
        #expect(following.failure == nil)
        #expect(following.summary?.records["locations"] == 80)
        #expect(!setup.files("locations").contains { $0.hasSuffix(".tmp") })
        let lines = try setup.finishedValues("locations").flatMap(\.lines)
        #expect(lines == (0..<80).map { "{\"n\":\($0)}" })
    }

    @Test func aSecondArchiverOnTheSameDirectoryIsRefused() throws {
        let setup = try Setup()
        let options = setup.options()
        let first = try Archiver(options: options, reader: try Archiver.makeReader(options), log: { _ in })
        #expect(throws: (any Error).self) {
            _ = try Archiver(options: options, reader: try Archiver.makeReader(options), log: { _ in })
        }
        _ = try first.run(shouldStop: { false })
        _ = try Archiver(options: options, reader: try Archiver.makeReader(options), log: { _ in })
    }
}
