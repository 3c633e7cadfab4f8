/// One position of a trip's track.
public struct TrackPoint: Sendable, Equatable {
    public var longitude: Double
    public var latitude: Double
    /// Event time of the fix, ms since 1970.
    public var time: Int64
}
