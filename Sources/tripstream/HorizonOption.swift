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

/// `--max-clock-skew`, shared by `run` and `replay`: how far ahead of the clock an input may be.
enum ClockSkewOption {
    static func spec(environment: String?) -> OptionSpec {
        OptionSpec.value(
            "max-clock-skew", valueName: "duration",
            help: "Inputs dated further ahead than this are dead-lettered future_timestamp and move no clock: ahead of "
                + "the wall clock in `run`, ahead of the stream (unless other users' inputs follow) in `replay`.",
            default: "15m", environment: environment)
    }

    static func read(_ parsed: ParsedArguments) throws -> UnixMillis {
        let skew = try parsed.duration("max-clock-skew")
        guard skew <= 7 * 24 * 3_600_000 else {
            throw CommandFailure("--max-clock-skew must be at most 7d, got \(skew / 1000) s")
        }
        return skew
    }
}
