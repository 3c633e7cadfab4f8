/// Where a played-back route stayed within ``RoutePlayback/stopRadius`` for ``RoutePlayback/minimumDwell`` or longer.
public struct PlaybackStop: Sendable, Equatable {
    public var longitude: Double
    public var latitude: Double
    public var start: Int64
    public var end: Int64
    public var dwellMilliseconds: Int64 { end - start }
}
