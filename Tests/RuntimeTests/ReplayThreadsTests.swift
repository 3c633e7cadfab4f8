import Codec
import Domain
import Foundation
import LZ4IO
import Runtime
import Simulation
import Testing

/// `tripstream replay --threads N` splits users over partitions and folds them on N threads; the
/// files it writes must not depend on N.
@Suite(.timeLimit(.minutes(5))) struct ReplayThreadsTests {
    /// A fleet with offline replays, duplicates and trips, plus a line that does not decode, as files.
    static func writeInputs(in directory: String) throws -> (geofences: String, commands: String, fixes: String) {
        var settings = SimulationSettings()
        settings.users = 300
        settings.geofences = 400
        settings.duration = 15 * 60
        settings.offlineChance = 0.01
        settings.duplicateChance = 0.01
        settings.seed = 11
        var simulator = FleetSimulator(settings: settings)
        var geofences: [[UInt8]] = [], commands: [[UInt8]] = [], fixes: [[UInt8]] = []
        var records = simulator.geofenceRecords
        repeat {
            for record in records {
                var line: [UInt8] = []
                switch record {
                case let .geofence(g):
                    InputRecordEncoder.encode(g, into: &line)
                    geofences.append(line)
                case let .command(c):
                    InputRecordEncoder.encode(c, into: &line)
                    commands.append(line)
                case let .fix(f):
                    InputRecordEncoder.encode(f, into: &line)
                    fixes.append(line)
                }
            }
            records.removeAll()
        } while simulator.nextStep(into: &records)
        fixes.insert(Array("{\"userId\":\"driver-1\",\"latitude\":\"north\"}".utf8), at: fixes.count / 2)
        return (try NDJSONFile.write(geofences, to: directory + "/geofences.ndjson"),
                try NDJSONFile.write(commands, to: directory + "/commands.ndjson"),
                try NDJSONFile.write(fixes, to: directory + "/fixes.ndjson"))
    }

    @Test func outputIsByteIdenticalWhateverTheThreadCount() throws {
        let directory = NSTemporaryDirectory() + "tripstream-threads-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try ReplayJob.makeDirectory(directory)
        let inputs = try Self.writeInputs(in: directory)
        var outputs: [Int: [Data]] = [:]
        var summaries: [Int: ReplaySummary] = [:]
        for threads in [1, 2, 4] {
            var options = ReplayOptions(geofencesPath: inputs.geofences, commandsPath: inputs.commands,
                                        fixesPath: inputs.fixes, outputDirectory: directory + "/out-\(threads)",
                                        settings: FoldSettings())
            options.threads = threads
            summaries[threads] = try ReplayJob.run(options)
            outputs[threads] = try ["events", "eta", "dead-letters"].map {
                try Data(contentsOf: URL(fileURLWithPath: directory + "/out-\(threads)/\($0).ndjson"))
            }
        }
        // Several read blocks: each is folded while the next is decoded by the threads done folding.
        let lines = try [inputs.geofences, inputs.commands, inputs.fixes].map {
            try String(contentsOfFile: $0, encoding: .utf8).split(separator: "\n").count
        }
        let fixBytes = try FileManager.default.attributesOfItem(atPath: inputs.fixes)[.size] as? Int ?? 0
        #expect(fixBytes > 4 << 20, "the fixes span several blocks of the reader")
        #expect(summaries[1]?.processor.recordsIn == lines.reduce(0, +), "every line of every block is read once")
        #expect(outputs[1]![0].count > 10_000, "the fleet yields events")
        #expect(outputs[1]![2].count > 0, "the bad line is dead-lettered")
        #expect((summaries[1]?.fold.rewinds ?? 0) > 0, "offline buffers are placed late")
        for threads in [2, 4] {
            #expect(outputs[threads] == outputs[1], "--threads \(threads) wrote other bytes than --threads 1")
            #expect(summaries[threads]?.fold == summaries[1]?.fold)
            #expect(summaries[threads]?.processor == summaries[1]?.processor)
        }
    }
}
