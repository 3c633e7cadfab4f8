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
