import CommandLineKit
import Domain

/// Service-wide settings of stop detection (geofences with `stopDetection: true`, and wrong-destination
/// arrivals), shared by `run` and `replay`.
enum StopDetectionOptions {
    /// The options; `run` also reads them from `TRIPSTREAM_…` environment variables.
    static func specs(environment: Bool) -> [OptionSpec] {
        [
            .value("stop-speed", valueName: "m/s",
                   help: "A user is stopped once every fix was slower than this (the fix's speed, else derived from "
                       + "the previous fix) for --stop-duration; geofences with stopDetection enter only then, and a stop inside a "
                       + "same-tag geofence that is not a trip's destination is a wrong-destination arrival (0…50).",
                   default: "1.5", environment: environment ? "TRIPSTREAM_STOP_SPEED" : nil),
            .value("stop-duration", valueName: "duration",
                   help: "See --stop-speed; longer than a wait at a red light (at most 24h).",
                   default: "2m", environment: environment ? "TRIPSTREAM_STOP_DURATION" : nil),
        ]
    }

    /// Reads the options into `settings`.
    static func read(_ parsed: ParsedArguments, into settings: inout FoldSettings) throws {
        settings.stopSpeed = try parsed.double("stop-speed")
        settings.stopDuration = try parsed.duration("stop-duration")
        guard (0...50).contains(settings.stopSpeed) else {
            throw CommandFailure("--stop-speed must be within 0…50 m/s, got \(settings.stopSpeed)")
        }
        guard (0...24 * 3_600_000).contains(settings.stopDuration) else {
            throw CommandFailure("--stop-duration must be at most 24h, got \(settings.stopDuration / 1000) s")
        }
    }
}
