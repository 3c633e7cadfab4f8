/// Everything the fold knows about one user. A value: checkpoints are copies.
public struct UserState: Sendable, Equatable {
    public var userId: String
    /// Newest fix folded (accepted or filtered); `.min` before the first.
    public var lastFixAt: UnixMillis = .min
    /// Last accepted position and when.
    public var location: Coordinate?
    public var locationAt: UnixMillis = .min
    public var accuracy: Float = .nan
    /// Smoothed observed speed, m/s; NaN until two fixes were seen.
    public var speed: Float = .nan
    public var deviceId: String?
    public var metadata: RawJSON?

    /// A run of fixes far from `location` that agree with each other: a real move, or a GPS jump.
    public var suspect: Coordinate?
    public var suspectAt: UnixMillis = .min
    public var suspectCount: UInt8 = 0

    /// Geofences the user is inside, in geofence-id order.
    public var presences: [Presence] = []
    public var visitCount: UInt32 = 0

    public var trip: TripProgress?
    public var tripCount: UInt32 = 0

    /// What this user's completed trips taught the ETA.
    public var etaLearning = EtaLearning()

    public init(userId: String) { self.userId = userId }

    /// The public view for the users topic.
    public func snapshot(in geofences: GeofenceTable) -> UserSnapshot {
        UserSnapshot(
            userId: userId, deviceId: deviceId, metadata: metadata,
            lastFixAt: lastFixAt == .min ? nil : lastFixAt, location: location, locationAccuracy: accuracy,
            speed: speed, trip: trip?.snapshot,
            geofences: presences.compactMap { presence in
                geofences.geofence(presence.geofenceID).map {
                    UserSnapshot.Presence(geofence: $0, enteredAt: presence.enteredAt)
                }
            })
    }
}
