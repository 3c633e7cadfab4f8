/// A user inside a geofence: one visit.
public struct Presence: Sendable, Equatable {
    public var geofenceID: GeofenceID
    public var enteredAt: UnixMillis
    /// When `user.dwelled_in_geofence` is due; `.max` once it fired or when the geofence has no
    /// dwell threshold. The threshold is the one the geofence had when the user entered.
    public var dwellDue: UnixMillis
    /// The visit's number among this user's visits of this geofence on the UTC day of `enteredAt`
    /// (`EventOrdinal`); with the geofence and that day it names the visit's events (`_id`).
    public var visitOrdinal: UInt32
    /// The geofence's `scheduledEnd` as last seen (`.max`: none): a timer that ends the visit.
    public var endsAt: UnixMillis
    /// Whether the user stopped during this visit (`UserState.isStopped`): what makes a same-tag
    /// geofence that is not a trip's destination a wrong-destination arrival, once a visit.
    public var stoppedInside: Bool
    /// Where the geofence sat in the table when last seen: a hint that saves a lookup by id.
    /// Not part of the state's identity (nor persisted).
    public var slotHint: Int32

    public init(geofenceID: GeofenceID, enteredAt: UnixMillis, dwellDue: UnixMillis, visitOrdinal: UInt32,
                endsAt: UnixMillis = .max, slotHint: Int32 = -1, stoppedInside: Bool = false)
    {
        self.geofenceID = geofenceID
        self.enteredAt = enteredAt
        self.dwellDue = dwellDue
        self.visitOrdinal = visitOrdinal
        self.endsAt = endsAt
        self.slotHint = slotHint
        self.stoppedInside = stoppedInside
    }

    public static func == (lhs: Presence, rhs: Presence) -> Bool {
        lhs.geofenceID == rhs.geofenceID && lhs.enteredAt == rhs.enteredAt && lhs.dwellDue == rhs.dwellDue
            && lhs.visitOrdinal == rhs.visitOrdinal && lhs.endsAt == rhs.endsAt
            && lhs.stoppedInside == rhs.stoppedInside
    }

    /// What names this visit's events in their `_id`: the geofence, the entry's day and the visit's number then.
    @inlinable
    public func combineVisit(into hasher: inout StableHasher) {
        hasher.combine(geofenceID.rawValue)
        EventOrdinal(day: EventOrdinal.day(of: enteredAt), count: visitOrdinal).combine(into: &hasher)
    }
}
