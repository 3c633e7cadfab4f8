/// The topic names TripStream reads and writes (DESIGN.md "Topics"); every one can be renamed.
public struct Topics: Sendable, Equatable {
    public var locations = "tripstream.locations"
    public var tripCommands = "tripstream.trip-commands"
    public var geofences = "tripstream.geofences"
    public var events = "tripstream.events"
    public var eta = "tripstream.eta"
    public var users = "tripstream.users"
    public var deadLetters = "tripstream.dead-letters"
    public var tripSummaries = "tripstream.trip-summaries"
    public var stateChangelog = "tripstream.state-changelog"

    public init() {}

    /// Topics keyed by userId and consumed together: they must have equal partition counts.
    public var inputs: [String] { [locations, tripCommands] }
    public var outputs: [String] { [events, eta, users, deadLetters, tripSummaries] }
    public var all: [String] {
        [locations, tripCommands, geofences, events, eta, users, deadLetters, tripSummaries, stateChangelog]
    }
    /// Compacted topics: a table of latest values per key.
    public var compacted: Set<String> { [geofences, users, stateChangelog] }
}
