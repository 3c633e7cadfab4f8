/// A trip as the trips panel and the tracking page show it.
public struct TripView: Sendable, Equatable {
    public var key: TripKey
    public var status: String
    public var mode: String?
    public var destinationTag: String?
    public var destinationExternalId: String?
    public var destination: (longitude: Double, latitude: Double)?
    public var destinationRadius: Double?
    public var startedAt: Int64?
    public var scheduledArrivalAt: Int64?
    public var arrivedAt: Int64?
    public var etaMinutes: Double?
    public var etaMeters: Double?
    /// The ETA's range, when the service publishes one (`eta.durationLow`/`durationHigh`).
    public var etaLowMinutes: Double?
    public var etaHighMinutes: Double?
    public var delayed: Bool
    /// Minutes the predicted arrival passes the scheduled one (Radar's scheduledArrivalTimeDelay).
    public var minutesLate: Int
    /// When the console learned that the trip ended (the ending record's Kafka timestamp, ms); nil while active.
    public var endedAt: Int64?
    /// Positions while the trip was active, oldest first, thinned to ``FleetModel/maximumTrackPoints``.
    public var track: [TrackPoint] = []

    public var isActive: Bool { TripView.activeStatuses.contains(status) }
    static let activeStatuses: Set<String> = ["pending", "started", "approaching", "arrived"]

    public static func == (a: TripView, b: TripView) -> Bool {
        a.key == b.key && a.status == b.status && a.etaMinutes == b.etaMinutes && a.delayed == b.delayed
            && a.endedAt == b.endedAt && a.track == b.track
    }
}
