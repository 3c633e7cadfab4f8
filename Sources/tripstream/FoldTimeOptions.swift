import CommandLineKit
import CommandSupport
import Domain

/// A duration option shared by `run` and `replay` with the range it must fall in: outside it is a
/// usage error naming the option, never a silent overflow later.
struct BoundedDurationOption {
    let name: String
    let help: String
    let defaultValue: String
    let range: ClosedRange<UnixMillis>
    let rangeText: String

    func spec(environment: String?) -> OptionSpec {
        OptionSpec.value(name, valueName: "duration", help: help, default: defaultValue, environment: environment)
    }

    func read(_ parsed: ParsedArguments) throws -> UnixMillis {
        let value = try parsed.duration(name)
        guard range.contains(value) else {
            throw CommandFailure("--\(name) must be \(rangeText), got \(value / 1000) s")
        }
        return value
    }
}

extension BoundedDurationOption {
    /// `--replay-horizon`: how far back a user's history reaches.
    static let replayHorizon = BoundedDurationOption(
    name: "replay-horizon",
    help: "How far behind a user's newest input a late input is still folded at its place (up to 30d); "
        + "older ones are dead-lettered as too_late. History of this length is kept on disk per user.",
    defaultValue: "6h", range: 1...FoldSettings.maximumReplayHorizon, rangeText: "more than 0 and at most 30d")

    /// `--max-clock-skew`: how far ahead of the clock an input may be.
    static let maxClockSkew = BoundedDurationOption(
    name: "max-clock-skew",
    help: "Inputs dated further ahead than this are dead-lettered future_timestamp and move no clock: ahead of "
        + "the wall clock in `run`, ahead of the stream (unless other users' inputs follow) in `replay`.",
    defaultValue: "15m", range: 0...(7 * 24 * 3_600_000), rangeText: "at most 7d")
}
