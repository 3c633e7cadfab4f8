import CommandLineKit
import Domain

/// `--replay-horizon`, shared by `run` and `replay`: how far back a user's history reaches.
enum HorizonOption {
    static let spec = spec(environment: nil)

    static func spec(environment: String?) -> OptionSpec {
        OptionSpec.value(
        "replay-horizon", valueName: "duration",
        help: "How far behind a user's newest input a late input is still folded at its place (up to 30d); "
            + "older ones are dead-lettered as too_late. History of this length is kept on disk per user.",
        default: "6h", environment: environment)
    }

    static func read(_ parsed: ParsedArguments) throws -> UnixMillis {
        let horizon = try parsed.duration("replay-horizon")
        guard horizon > 0, horizon <= FoldSettings.maximumReplayHorizon else {
            throw CommandFailure("--replay-horizon must be more than 0 and at most 30d, got \(horizon / 1000) s")
        }
        return horizon
    }
}
