/// The topics the console reads: TripStream's outputs and the geofences table.
public struct ConsoleTopics: Sendable, Equatable {
    public var users = "tripstream.users"
    public var events = "tripstream.events"
    public var eta = "tripstream.eta"
    public var tripSummaries = "tripstream.trip-summaries"
    public var geofences = "tripstream.geofences"
    /// The input fixes, read only for a route's playback.
    public var locations = "tripstream.locations"
    public init() {}

    /// The topics the read model follows.
    public var all: [String] { [users, events, eta, tripSummaries, geofences] }
}
