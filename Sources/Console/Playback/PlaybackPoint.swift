/// One fix of a played-back route.
public struct PlaybackPoint: Sendable, Equatable {
    /// Event time (the fix's createdAt), ms since 1970.
    public var time: Int64
    public var longitude: Double
    public var latitude: Double
    /// Meters per second: the fix's own, else from the distance to the previous fix.
    public var speed: Double?

    public init(time: Int64, longitude: Double, latitude: Double, speed: Double? = nil) {
        self.time = time
        self.longitude = longitude
        self.latitude = latitude
        self.speed = speed
    }
}
