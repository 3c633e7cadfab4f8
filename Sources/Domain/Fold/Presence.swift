/// A user inside a geofence: one visit.
public struct Presence: Sendable, Equatable {
    public var geofenceID: GeofenceID
    public var enteredAt: UnixMillis
    /// The user's visit number; with the geofence it names the visit's events (`_id`).
    public var visitOrdinal: UInt32
    public var dwelled: Bool

    public init(geofenceID: GeofenceID, enteredAt: UnixMillis, visitOrdinal: UInt32, dwelled: Bool = false) {
        self.geofenceID = geofenceID
        self.enteredAt = enteredAt
        self.visitOrdinal = visitOrdinal
        self.dwelled = dwelled
    }
}
