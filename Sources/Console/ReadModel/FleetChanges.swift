/// One tick's changes of the read model.
public struct FleetChanges: Sendable {
    public var drivers: [Driver]
    public var removedDrivers: [String]
    public var trips: [TripView]
    public var geofences: [GeofenceView]
    public var removedGeofences: [String]
    public var events: [FeedEvent]
    /// Events read since the last changes: more than `events` holds when the feed dropped some unseen.
    public var eventCount: Int
    public var streamTime: Int64
    public var newestUserRecordAt: Int64
    /// This delta's number (the SSE event id).
    public var sequence: Int64

    public var isEmpty: Bool {
        drivers.isEmpty && removedDrivers.isEmpty && trips.isEmpty && geofences.isEmpty && removedGeofences.isEmpty
            && events.isEmpty
    }
}
