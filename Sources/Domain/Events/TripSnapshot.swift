/// A trip as an event shows it (`trip` in Radar's webhook payload).
public struct TripSnapshot: Sendable, Equatable {
    public var plan: TripPlan
    public var status: TripStatus
    public var startedAt: UnixMillis
    public var eta: Eta?
    /// Radar's `trip.delay`, for a trip with `scheduledArrivalAt`: updated on every event.
    public var delay: TripDelay?
    /// Consecutive fixes on which the ETA rose while the user should be closing in (no-show risk).
    public var etaRisingStreak: UInt16
    public var arrivedAt: UnixMillis?
    /// Present on `user.stopped_trip`.
    public var summary: TripSummary?
    /// A destination geofence's center (Radar's `destinationLocation`), as last looked up; a
    /// destination given as coordinates is the plan's.
    public var destinationLocation: Coordinate?

    public init(
        plan: TripPlan, status: TripStatus, startedAt: UnixMillis, eta: Eta? = nil, delay: TripDelay? = nil,
        etaRisingStreak: UInt16 = 0, arrivedAt: UnixMillis? = nil, summary: TripSummary? = nil
    ) {
        self.plan = plan
        self.status = status
        self.startedAt = startedAt
        self.eta = eta
        self.delay = delay
        self.etaRisingStreak = etaRisingStreak
        self.arrivedAt = arrivedAt
        self.summary = summary
    }
}

/// What payroll and analytics need when a trip stops.
public struct TripSummary: Sendable, Equatable {
    /// Filtered mileage: GPS jumps and parked jitter excluded.
    public var distanceMeters: Int32
    public var durationSeconds: Int32
    /// Arrival at the destination to exit from it (or to the stop, if still there); nil if never arrived.
    public var timeOnSiteSeconds: Int32?
    /// How far off the ETA was at 25/50/75 % of the way (trip-summary records only, not events).
    public var etaErrors: EtaErrors

    public init(distanceMeters: Int32, durationSeconds: Int32, timeOnSiteSeconds: Int32?,
                etaErrors: EtaErrors = EtaErrors())
    {
        self.distanceMeters = distanceMeters
        self.durationSeconds = durationSeconds
        self.timeOnSiteSeconds = timeOnSiteSeconds
        self.etaErrors = etaErrors
    }
}
