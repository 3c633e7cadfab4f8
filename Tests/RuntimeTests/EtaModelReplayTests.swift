import Codec
import Domain
import Foundation
import Runtime
import Testing

/// `replay --eta-model-out FILE` then `replay --eta-model FILE`: the model learned, and the ETAs
/// made with it, are the same bytes whatever the thread count, and the model shapes the ETAs.
@Suite(.timeLimit(.minutes(5))) struct EtaModelReplayTests {
    func replay(_ inputs: (geofences: String, commands: String, fixes: String), into directory: String,
                threads: Int, model: FleetEtaModel? = nil, learnTo modelPath: String? = nil) throws -> [Data]
    {
        var settings = FoldSettings()
        settings.eta.fleetModel = model
        var options = ReplayOptions(geofencesPath: inputs.geofences, commandsPath: inputs.commands,
                                    fixesPath: inputs.fixes, outputDirectory: directory, settings: settings)
        options.threads = threads
        options.partitions = 4
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
