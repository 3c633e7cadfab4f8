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

    /// The first line that differs between two runs' files, for the failure's message.
    static func firstDifference(_ files: [Data], _ expected: [Data]) -> String {
        for (file, other) in zip(files, expected) where file != other {
            let lines = file.split(separator: UInt8(ascii: "\n")), others = other.split(separator: UInt8(ascii: "\n"))
            for (number, (line, otherLine)) in zip(lines, others).enumerated() where line != otherLine {
                return "line \(number + 1): \(String(decoding: line.prefix(600), as: UTF8.self)) against \(String(decoding: otherLine.prefix(600), as: UTF8.self))"
            }
            return "\(lines.count) lines against \(others.count)"
        }
        return "none"
    }

    /// Threads and the read block's size decide nothing: late inputs are placed where the fold's policy says
    /// (`FoldSettings.latePlacementInputs`), so `actualCreatedAt` and `late` are the same bytes too.
    @Test func outputIsByteIdenticalWhateverTheThreadCountAndReadBlockSize() throws {
        let directory = NSTemporaryDirectory() + "tripstream-threads-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try ReplayJob.makeDirectory(directory)
        let inputs = try Self.writeInputs(in: directory)
        let runs: [(threads: Int, blockBytes: Int)] = [
            (1, ReplayJob.fixesBlockBytes), (2, ReplayJob.fixesBlockBytes), (4, ReplayJob.fixesBlockBytes),
            (1, 1 << 20), (2, 64 << 10), (1, 12_345),
        ]
        var outputs: [[Data]] = []
        var summaries: [ReplaySummary] = []
        // Events a minute behind the stream are late: where a late input is placed shows in their bytes.
        var settings = FoldSettings()
        settings.lateLag = 60_000
        for (index, run) in runs.enumerated() {
            var options = ReplayOptions(geofencesPath: inputs.geofences, commandsPath: inputs.commands,
                                        fixesPath: inputs.fixes, outputDirectory: directory + "/out-\(index)",
                                        settings: settings)
            options.threads = run.threads
            options.readBlockBytes = run.blockBytes
            summaries.append(try ReplayJob.run(options))
            outputs.append(try ["events", "eta", "dead-letters", "trip-summaries"].map {
                try Data(contentsOf: URL(fileURLWithPath: directory + "/out-\(index)/\($0).ndjson"))
            })
        }
        // Several read blocks: each is folded while the next is decoded by the threads done folding.
        let lines = try [inputs.geofences, inputs.commands, inputs.fixes].map {
            try String(contentsOfFile: $0, encoding: .utf8).split(separator: "\n").count
        }
        let fixBytes = try FileManager.default.attributesOfItem(atPath: inputs.fixes)[.size] as? Int ?? 0
        #expect(fixBytes > 4 << 20, "the fixes span several blocks of the reader")
        #expect(summaries[0].processor.recordsIn == lines.reduce(0, +), "every line of every block is read once")
        #expect(outputs[0][0].count > 10_000, "the fleet yields events")
        #expect(outputs[0][2].count > 0, "the bad line is dead-lettered")
        #expect(summaries[0].fold.rewinds > 0, "offline buffers are placed late")
        let lateEvents = String(decoding: outputs[0][0], as: UTF8.self).components(separatedBy: "\"late\":true").count - 1
        #expect(lateEvents > 0, "some events are late: their actualCreatedAt is when their input was placed")
        for index in runs.indices.dropFirst() {
            let run = runs[index]
            #expect(outputs[index] == outputs[0],
                    "--threads \(run.threads) with \(run.blockBytes)-byte blocks wrote other bytes than --threads 1: \(Self.firstDifference(outputs[index], outputs[0]))")
            #expect(summaries[index].fold == summaries[0].fold)
            #expect(summaries[index].processor == summaries[0].processor)
        }
    }
}
