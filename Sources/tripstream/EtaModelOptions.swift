import Codec
import CommandLineKit
import CommandSupport
import Domain
import Foundation

/// `--eta-model FILE`: the fleet's learned ETA model (`schemas/eta-model.md`) the fold starts from,
/// shared by `run`, `replay` and `demo`.
enum EtaModelOptions {
    static func specs(environment: Bool) -> [OptionSpec] {
        [
            .value("eta-model", valueName: "file",
                   help: "A learned ETA model (written by replay --eta-model-out; schemas/eta-model.md): ETAs blend "
                       + "it with the per-user sqrt curve and take its 10-90% range. Default: the curve alone.",
                   environment: environment ? "TRIPSTREAM_ETA_MODEL" : nil),
        ]
    }

    /// Reads and checks the model into `settings`; a missing, foreign or damaged file is an error naming it.
    static func read(_ parsed: ParsedArguments, into settings: inout FoldSettings) throws {
        guard let path = try parsed.optional("eta-model", parsed.string) else { return }
        settings.eta.fleetModel = try load(path)
    }

    static func load(_ path: String) throws -> FleetEtaModel {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("--eta-model \(path): cannot read the file")
        }
        do {
            return try EtaModelFile.decode(Array(data))
        } catch {
            throw CommandFailure("--eta-model \(path): \(error)")
        }
    }
}
