import Codec
import Domain
import Foundation
import LZ4IO
@testable import Runtime
import Simulation
import Testing

/// A geofences file decoded on another thread while the calling thread indexes it gives what the
/// load on one thread gives: the same table, dead letters and counters.
@Suite struct GeofenceFileLoadTests {
    /// Several decode batches of simulated geofences, with bad lines, an empty one, a line over the
    /// line limit and a later upsert of an earlier geofence among them.
    static func lines() -> [[UInt8]] {
        var settings = SimulationSettings()
        settings.users = 10
        settings.geofences = 6_000
        settings.seed = 5
        let simulator = FleetSimulator(settings: settings)
        var lines: [[UInt8]] = simulator.geofenceRecords.compactMap { record in
            guard case let .geofence(geofence) = record else { return nil }
            var line: [UInt8] = []
            InputRecordEncoder.encode(geofence, into: &line)
            return line
        }
        let upserted = lines[10]
        lines.insert(Array("{\"tag\":1}".utf8), at: 100)
        lines.insert([], at: 2_000)
        lines.insert(Array("{\"tag\":\"store\",\"externalId\":\"x\",\"pad\":\"".utf8) + Array(repeating: UInt8(ascii: "y"), count: 1 << 20)
                     + Array("\"}".utf8), at: 3_000)
        lines.insert(Array("not json".utf8), at: 4_500)
        // The same geofence again, smaller: the later line wins in both loads.
        let text = String(decoding: upserted, as: UTF8.self)
        lines.append(Array(text.replacingOccurrences(of: "\"type\":\"circle\"", with: "\"type\":\"circle\",\"description\":\"again\"").utf8))
        return lines
    }

    static func load(_ path: String, decodingOn thread: SerialJobThread?) throws
        -> (table: GeofenceTable, counters: ProcessorCounters, deadLetters: [UInt8])
    {
        var processor = InputProcessor(settings: FoldSettings())
        var output = OutputBatch(newlineSeparated: true)
        var table = GeofenceTable()
        if let thread {
            table = try GeofenceFileLoad.load(path, processor: &processor, output: &output, decodingOn: thread)
        } else {
            // The reference: every line decoded and applied in turn, on this thread.
            try ReplayJob.forEachRecord(path, topic: ReplayJob.geofencesTopic, processor: &processor, output: &output) {
                line, bytes, processor, output in
                processor.processGeofence(key: nil, value: bytes,
                                          source: RecordSource(topic: ReplayJob.geofencesTopic, partition: 0,
                                                               offset: Int64(line)),
                                          geofences: &table, processingTime: nil, into: &output)
            }
        }
        return (table, processor.counters, output.deadLetters.values)
    }

    @Test func givesTheTableDeadLettersAndCountersOfALoadOnOneThread() throws {
        let path = NSTemporaryDirectory() + "geofences-\(UUID().uuidString).ndjson"
        defer { unlink(path) }
        _ = try NDJSONFile.write(Self.lines(), to: path)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(size > 4 * GeofenceFileLoad.chunkSize, "several decode batches")

        let thread = SerialJobThread(name: "test-decoder")
        defer { thread.stop() }
        let one = try Self.load(path, decodingOn: nil)
        let two = try Self.load(path, decodingOn: thread)
        #expect(one.table.count > 5_000)
        #expect(two.table.count == one.table.count)
        #expect(two.table.fingerprint == one.table.fingerprint)
        #expect(two.counters == one.counters)
        #expect(one.counters.deadLetters.values.reduce(0, +) == 3, "two bad lines and the long one")
        #expect(two.deadLetters == one.deadLetters)
        #expect(two.table.all.contains { $0.description == "again" }, "the later line won")
    }

    /// A read error in the middle of the file reaches the caller, the processor and output come back.
    @Test func aReadErrorReachesTheCaller() throws {
        let path = NSTemporaryDirectory() + "geofences-\(UUID().uuidString).ndjson.lz4"
        defer { unlink(path) }
        let text = Self.lines().map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
        let compressed = LZ4Frame.compress(Array(text.utf8))
        try Data(compressed.prefix(compressed.count * 3 / 4)).write(to: URL(fileURLWithPath: path))
        let thread = SerialJobThread(name: "test-decoder")
        defer { thread.stop() }
        var processor = InputProcessor(settings: FoldSettings())
        var output = OutputBatch(newlineSeparated: true)
        #expect(throws: LZ4IOError(.truncatedFrame, path: path)) {
            _ = try GeofenceFileLoad.load(path, processor: &processor, output: &output, decodingOn: thread)
        }
        #expect(processor.counters.recordsIn > 1_000, "the lines before the cut were decoded")
        #expect(output.deadLetters.count >= 1, "and their dead letters kept")
    }
}
