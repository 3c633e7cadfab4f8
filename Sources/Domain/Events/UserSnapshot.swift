/// The latest known state of one user, as the compacted `tripstream.users` topic publishes it (the
/// live map): last location, current trip, geofences the user is inside.
public struct UserSnapshot: Sendable, Equatable {
    public struct Presence: Sendable, Equatable {
        public var geofence: Geofence
        public var enteredAt: UnixMillis

        public init(geofence: Geofence, enteredAt: UnixMillis) {
            self.geofence = geofence
            self.enteredAt = enteredAt
        }

        public static func == (lhs: Presence, rhs: Presence) -> Bool {
            lhs.geofence === rhs.geofence && lhs.enteredAt == rhs.enteredAt
        }
    }

    public var userId: String
    public var deviceId: String?
    public var metadata: RawJSON?
    /// Time of the newest fix folded; nil if only commands were seen.
    public var lastFixAt: UnixMillis?
    public var location: Coordinate?
    /// Meters; NaN when unknown.
    public var locationAccuracy: Float
    /// Observed speed, m/s (smoothed); NaN when unknown.
    public var speed: Float
    public var trip: TripSnapshot?
    public var geofences: [Presence]

    public init(
        userId: String, deviceId: String?, metadata: RawJSON?, lastFixAt: UnixMillis?, location: Coordinate?,
        locationAccuracy: Float, speed: Float, trip: TripSnapshot?, geofences: [Presence]
    ) {
        self.userId = userId
        self.deviceId = deviceId
        self.metadata = metadata
        self.lastFixAt = lastFixAt
        self.location = location
        self.locationAccuracy = locationAccuracy
        self.speed = speed
        self.trip = trip
        self.geofences = geofences
    }
}
