/// Which of a user's trips: the tracking token and the trips panel name trips this way.
public struct TripKey: Hashable, Sendable {
    public var user: String
    public var trip: String
    public init(user: String, trip: String) {
        self.user = user
        self.trip = trip
    }
}
