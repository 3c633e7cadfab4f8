/// The knobs of the fold. Every value is part of the determinism contract: the same inputs with the
/// same settings give the same events.
public struct FoldSettings: Sendable, Equatable {
    /// Smallest hysteresis buffer outside a geofence's edge before an exit counts, meters. Default: 10.
    public var hysteresisMinimum: Double = 10
    /// Hysteresis buffer as a fraction of the geofence's radius. Default: 0.2.
    public var hysteresisFraction: Double = 0.2
    /// Largest hysteresis buffer, meters. Default: 50.
    public var hysteresisMaximum: Double = 50
    /// A fix may enter a geofence only if its accuracy is at most max(radius, this), meters, or its
    /// whole uncertainty circle is inside. Default: 50.
    public var enterAccuracyFloor: Double = 50
    /// Fixes less accurate than this are too vague to decide anything about geofences, meters.
    /// Default: 1000.
    public var maxUsableAccuracy: Float = 1000

    /// Stop detection (geofences with `stopDetection`, wrong-destination arrivals): a user is stopped
    /// once every fix was slower than this, m/s, for `stopDuration`. Default: 1.5 (a slow walk).
    public var stopSpeed: Double = 1.5
    /// See `stopSpeed`. Default: 2 min, longer than a wait at a red light (on the real Porto rides,
    /// 60 s made 0.09 wrong-destination stops per ride out of traffic, 2 min 0.03; Radar's SDK
    /// takes 140 s).
    public var stopDuration: UnixMillis = 120_000

    /// Speed above which a fix is a GPS jump rather than movement, m/s, before slack. Default: 55 (≈200 km/h).
    public var maxPlausibleSpeed: Double = 55
    /// Distance any fix may move regardless of elapsed time, meters (covers GPS noise). Default: 100.
    public var jumpSlack: Double = 100
    /// Mutually consistent rejected fixes after which the user is taken to really be there. Default: 3.
    public var jumpConfirmations: UInt8 = 3
    /// Mileage accrues only once the user moved this far from the last counted point, meters;
    /// parked jitter stays below it. Default: 15.
    public var mileageMinimumStep: Double = 15

    /// A last location older than this when a trip starts is not where the trip starts: mileage
    /// and the ETA wait for the first fix. Default: 2 min.
    public var freshLocation: UnixMillis = 120_000
    /// Default approaching threshold when a trip gives none, minutes. Default: 5.
    public var defaultApproachingThreshold: Int = 5
    /// Default delay threshold when a trip gives none: minutes of predicted lateness past
    /// `scheduledArrivalAt` before `user.delayed_during_trip`. Default: 0 (any lateness).
    public var defaultDelayThreshold: Int = 0
    /// Default radius of a destination given as coordinates, meters. Default: 100.
    public var defaultDestinationRadius: Double = 100
    /// A trip neither completed nor canceled expires this long after it started. Default: 24 h.
    public var tripExpiry: UnixMillis = 24 * 3_600_000
    /// When a trip reports `user.arrived_at_wrong_trip_destination`, for trips that give no rule.
    /// Default: `.stop` (a stop inside, never a drive-through).
    public var wrongDestination: WrongDestinationRule = .stop
    /// A trip that has not arrived yet and has no fix for this long yields `user.trip_signal_lost`
    /// (0: never). Default: 10 min.
    public var tripSignalLostAfter: UnixMillis = 600_000
    /// A trip whose ETA rose on every fix for this long yields `user.moving_away_from_trip_destination`
    /// (0: never). Default: 5 min.
    public var movingAwayAfter: UnixMillis = 300_000
    /// Events whose event time lags processing time by more than this are `late: true`.
    /// Default: 10 min.
    public var lateLag: UnixMillis = 600_000

    /// The replay horizon: a user's history reaches back this far behind their newest input, and any
    /// input within it is folded at its place; older ones are `too_late`. Default: 6 h.
    public var replayHorizon: UnixMillis = 6 * 3_600_000
    /// The longest horizon accepted: 30 days.
    public static let maximumReplayHorizon: UnixMillis = 30 * 24 * 3_600_000
    /// Inputs per history segment: the hot tail holds up to about this many, older inputs go to the
    /// history store in segments of this size, each with the state before it. Changes how history is
    /// stored, never what the fold yields. Default: 32.
    public var segmentInputs: Int = 32
    /// Inputs newer than processing time by more than this are `future_timestamp`. Default: 15 min.
    public var maxClockSkew: UnixMillis = 900_000
    /// When late inputs are placed: a late input is queued, and the queued ones are placed (one refold
    /// per user) once the partition has had `latePlacementInputs` inputs since the first of them was
    /// queued, before a timer of their user fires, and when the caller settles (a transaction of `run`,
    /// the end of a replay). Counted in inputs,
    /// never in bytes, threads or time, so a replay places them alike whatever its buffers. Changes
    /// `actualCreatedAt` and `late` of the placed inputs' events, never what a consumer upserts.
    /// Default: 512.
    public var latePlacementInputs: Int = 512

    public var eta = EtaSettings()

    public init() {}
}
