import CommandLineKit
import Domain

/// Service-wide defaults of trip detection, shared by `run` and `replay` (a trip command may
/// override some of them per trip).
enum TripDefaultOptions {
    /// The options; `run` also reads them from `TRIPSTREAM_…` environment variables.
    static func specs(environment: Bool) -> [OptionSpec] {
        [
            .value("approaching-threshold", valueName: "minutes",
                   help: "ETA in minutes at which a trip becomes approaching, for trips that give no approachingThreshold "
                       + "(1…1440).",
                   default: "5", environment: environment ? "TRIPSTREAM_APPROACHING_THRESHOLD" : nil),
            .value("trip-expiry", valueName: "duration",
                   help: "A trip neither completed nor canceled expires this long after it started, for trips that give "
                       + "no expiresAfter (1m…30d).",
                   default: "24h", environment: environment ? "TRIPSTREAM_TRIP_EXPIRY" : nil),
            .value("delay-threshold", valueName: "minutes",
                   help: "Minutes of predicted lateness past a trip's scheduledArrivalAt before user.delayed_during_trip, "
                       + "for trips that give no delayThreshold (0…1440).",
                   default: "0", environment: environment ? "TRIPSTREAM_DELAY_THRESHOLD" : nil),
            .value("wrong-destination", valueName: "rule",
                   help: "When user.arrived_at_wrong_trip_destination fires, for trips that give no wrongDestination: "
                       + "stop (once the user stopped inside a same-tag geofence that is not the destination, for "
                       + "--stop-duration; never a drive-through), entry (Radar's: on entering) or off.",
                   default: "stop", environment: environment ? "TRIPSTREAM_WRONG_DESTINATION" : nil),
            .value("trip-signal-lost-after", valueName: "duration",
                   help: "A trip on its way (not yet arrived) without a fix for this long yields user.trip_signal_lost, "
                       + "on the partition's stream time (0: never; at most 24h).",
                   default: "10m", environment: environment ? "TRIPSTREAM_TRIP_SIGNAL_LOST_AFTER" : nil),
            .value("moving-away-after", valueName: "duration",
                   help: "A trip whose ETA rose on every fix for this long yields user.moving_away_from_trip_destination "
                       + "(0: never; at most 24h).",
                   default: "5m", environment: environment ? "TRIPSTREAM_MOVING_AWAY_AFTER" : nil),
        ]
    }

    /// Reads the options into `settings`.
    static func read(_ parsed: ParsedArguments, into settings: inout FoldSettings) throws {
        settings.defaultApproachingThreshold = try parsed.int("approaching-threshold", in: 1...1440)
        settings.tripExpiry = try parsed.duration("trip-expiry")
        guard (60_000...FoldSettings.maximumReplayHorizon).contains(settings.tripExpiry) else {
            throw CommandFailure("--trip-expiry must be 1m…30d, got \(settings.tripExpiry / 1000) s")
        }
        settings.defaultDelayThreshold = try parsed.int("delay-threshold", in: 0...1440)
        let rule = try parsed.string("wrong-destination")
        guard let wrongDestination = WrongDestinationRule(name: rule) else {
            throw CommandFailure("--wrong-destination must be stop, entry or off, got \(rule)")
        }
        settings.wrongDestination = wrongDestination
        settings.tripSignalLostAfter = try parsed.duration("trip-signal-lost-after")
        settings.movingAwayAfter = try parsed.duration("moving-away-after")
        for (name, value) in [("trip-signal-lost-after", settings.tripSignalLostAfter),
                              ("moving-away-after", settings.movingAwayAfter)]
        where !(0...24 * 3_600_000).contains(value) {
            throw CommandFailure("--\(name) must be at most 24h, got \(value / 1000) s")
        }
    }
}
