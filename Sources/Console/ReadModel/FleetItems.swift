/// A driver as the map draws it: the newest state the users topic holds for it.
public struct Driver: Sendable, Equatable {
    public var id: String
    public var longitude: Double
    public var latitude: Double
    /// Event time of the newest fix, ms since 1970 (0 when unknown).
    public var lastFixAt: Int64
    public var speed: Double?
    /// The user's current trip while it is active (pending, started, approaching, arrived).
    public var activeTrip: String?
    public var delayed: Bool
}

/// Which of a user's trips: the tracking token and the trips panel name trips this way.
public struct TripKey: Hashable, Sendable {
    public var user: String
    public var trip: String
    public init(user: String, trip: String) {
        self.user = user
        self.trip = trip
    }
}

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

public struct TrackPoint: Sendable, Equatable {
    public var longitude: Double
    public var latitude: Double
    /// Event time of the fix, ms since 1970.
    public var time: Int64
}

/// One line of the live event feed.
public struct FeedEvent: Sendable, Equatable {
    public var sequence: Int64
    public var id: String
    public var type: String
    public var createdAt: Int64
    public var user: String
    public var longitude: Double?
    public var latitude: Double?
    public var geofence: String?
    public var trip: String?
}

/// A geofence drawn on the map.
public struct GeofenceView: Sendable, Equatable {
    public enum Shape: Sendable, Equatable {
        case circle(longitude: Double, latitude: Double, radius: Double)
        /// Rings of [longitude, latitude]; the first is the outline.
        case polygon([[[Double]]])
    }
    public var key: String
    public var tag: String
    public var externalId: String
    public var description: String?
    public var shape: Shape
}
