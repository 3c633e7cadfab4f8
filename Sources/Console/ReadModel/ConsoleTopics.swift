import struct Runtime.Topics

/// The topics the console reads: TripStream's outputs and the geofences table, named as the
/// service names them (`Topics`, renamed there with the service's own options).
public struct ConsoleTopics: Sendable, Equatable {
    public var users: String
    public var events: String
    public var eta: String
    public var tripSummaries: String
    public var geofences: String
    /// The input fixes, read only for a route's playback.
    public var locations: String

    public init(_ topics: Topics = Topics()) {
        users = topics.users
        events = topics.events
        eta = topics.eta
        tripSummaries = topics.tripSummaries
        geofences = topics.geofences
        locations = topics.locations
    }

    /// The topics the read model follows.
    public var all: [String] { [users, events, eta, tripSummaries, geofences] }
}
