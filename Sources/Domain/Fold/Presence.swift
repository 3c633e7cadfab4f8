/// A user inside a geofence: one visit.
public struct Presence: Sendable, Equatable {
    public var geofenceID: GeofenceID
    public var enteredAt: UnixMillis
    /// The user's visit number; with the geofence it names the visit's events (`_id`).
    public var visitOrdinal: UInt32
    public var dwelled: Bool
    /// Where the geofence sat in the table when last seen: a hint that saves a lookup by id.
    /// Not part of the state's identity (nor persisted).
    public var slotHint: Int32

    public init(geofenceID: GeofenceID, enteredAt: UnixMillis, visitOrdinal: UInt32, dwelled: Bool = false,
                slotHint: Int32 = -1)
    {
        self.geofenceID = geofenceID
        self.enteredAt = enteredAt
        self.visitOrdinal = visitOrdinal
        self.dwelled = dwelled
        self.slotHint = slotHint
    }

    public static func == (lhs: Presence, rhs: Presence) -> Bool {
        lhs.geofenceID == rhs.geofenceID && lhs.enteredAt == rhs.enteredAt && lhs.visitOrdinal == rhs.visitOrdinal
            && lhs.dwelled == rhs.dwelled
    }
}
