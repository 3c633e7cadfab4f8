import Codec
import Domain
import Foundation
import Runtime
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `replay --eta-model-out FILE` then `replay --eta-model FILE`: the model learned, and the ETAs
/// made with it, are the same bytes whatever the thread and partition counts, and the model shapes
/// the ETAs.
@Suite(.timeLimit(.minutes(5))) struct EtaModelReplayTests {
    func replay(_ inputs: (geofences: String, commands: String, fixes: String), into directory: String,
                threads: Int, partitions: Int = 4, model: FleetEtaModel? = nil, learnTo modelPath: String? = nil)
        throws -> [Data]
    {
        var settings = FoldSettings()
        settings.eta.fleetModel = model
        var options = ReplayOptions(geofencesPath: inputs.geofences, commandsPath: inputs.commands,
                                    fixesPath: inputs.fixes, outputDirectory: directory, settings: settings)
        options.threads = threads
        options.partitions = partitions
        options.etaModelOutPath = modelPath
        _ = try ReplayJob.run(options)
        return try ["events", "eta"].map { try Data(contentsOf: URL(fileURLWithPath: directory + "/\($0).ndjson")) }
    }

    @Test func learningThenUsingTheModelIsTheSameWhateverTheThreadCount() throws {
        let directory = NSTemporaryDirectory() + "tripstream-eta-model-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try ReplayJob.makeDirectory(directory)
        let inputs = try ReplayThreadsTests.writeInputs(in: directory)

        let plain = try replay(inputs, into: directory + "/plain", threads: 1)
        let learning = try replay(inputs, into: directory + "/learn-1", threads: 1, learnTo: directory + "/model-1")
        _ = try replay(inputs, into: directory + "/learn-2", threads: 2, learnTo: directory + "/model-2")
        #expect(learning == plain, "learning does not change this run's outputs")
        let file1 = try Data(contentsOf: URL(fileURLWithPath: directory + "/model-1"))
        let file2 = try Data(contentsOf: URL(fileURLWithPath: directory + "/model-2"))
        #expect(file1 == file2, "--threads 2 learned another model than --threads 1")
        // One partition: the same trips in the fit. A refold after a late delivery (1 % of these
        // devices) learns its stretch's steps again, and where refolds fall depends on the partitions,
        // so the map may differ by those steps (without late deliveries the bytes are the same:
        // EtaLearnerTests); the ETAs and ranges stay within 2 %.
        _ = try replay(inputs, into: directory + "/learn-p1", threads: 2, partitions: 1, learnTo: directory + "/model-p1")
        let onePartition = try EtaModelFile.decode(Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/model-p1"))))
        let fourPartitions = try EtaModelFile.decode(Array(file1))
        #expect(onePartition.samples == fourPartitions.samples)
        var largest = 0.0
        for edge in stride(from: 20.0, to: 9000, by: 170) {
            for done in [0.0, 0.3, 0.5, 0.7, 0.9] {
                for speed in [0.0, 3, 9, 15] {
                    let features = EtaFeatures(values: [1, log(edge + 30), log(300), log((edge + 30) / (1 - done)),
                                                        log(speed + 1), log(speed / 2 + 1), 1.5, 1.3])
                    let (a, b) = (onePartition.estimate(features), fourPartitions.estimate(features))
                    largest = max(largest, abs(a.logSeconds - b.logSeconds), abs(log(a.lowFactor / b.lowFactor)),
                                  abs(log(a.highFactor / b.highFactor)))
                }
            }
        }
        #expect(largest < 0.02, "--partitions 1 and 4 differ by \(largest) in ln seconds")
        let model = try EtaModelFile.decode(Array(file1))
        #expect(model.samples > 100, "arrived trips taught the model")
        #expect(model.paceMap.cells.count > 100, "steps taught the map")

        let with1 = try replay(inputs, into: directory + "/use-1", threads: 1, model: model)
        let with2 = try replay(inputs, into: directory + "/use-2", threads: 2, model: model)
        #expect(with1 == with2, "--threads 2 wrote other ETAs with the model than --threads 1")
        #expect(with1[1] != plain[1], "the model shapes the ETAs")
        let firstEta = try #require(String(decoding: with1[1], as: UTF8.self).split(separator: "\n").first {
            $0.contains("\"durationLow\"") && !$0.contains("\"duration\":0,")
        })
        #expect(firstEta.contains("\"durationHigh\""))

        // Learning on from the loaded model: the file holds both.
        _ = try replay(inputs, into: directory + "/again", threads: 2, model: model, learnTo: directory + "/model-3")
        let again = try EtaModelFile.decode(Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/model-3"))))
        #expect(again.samples == 2 * model.samples)
    }
}
