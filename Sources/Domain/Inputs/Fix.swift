/// One location fix from a device (`tripstream.locations`).
///
/// Optional measurements use NaN for "absent" so the struct stays small and trivially copyable.
public struct Fix: Sendable, Equatable {
    public var userId: String
    /// Device time of the fix.
    public var createdAt: UnixMillis
    public var position: Coordinate
    /// Horizontal accuracy in meters; NaN when the device did not say.
    public var accuracy: Float
    /// Meters per second; NaN when absent.
    public var speed: Float
    /// Degrees clockwise from north; NaN when absent.
    public var course: Float
    /// Meters; NaN when absent.
    public var altitude: Float
    /// The device sent this fix from its offline buffer.
    public var replayed: Bool
    public var deviceId: String?
    /// The user's metadata as sent with the fix; carried into events as `user.metadata`.
    public var metadata: RawJSON?

    public init(
        userId: String, createdAt: UnixMillis, position: Coordinate, accuracy: Float = .nan,
        speed: Float = .nan, course: Float = .nan, altitude: Float = .nan, replayed: Bool = false,
        deviceId: String? = nil, metadata: RawJSON? = nil
    ) {
        self.userId = userId
        self.createdAt = createdAt
        self.position = position
        self.accuracy = accuracy
        self.speed = speed
        self.course = course
        self.altitude = altitude
        self.replayed = replayed
        self.deviceId = deviceId
        self.metadata = metadata
    }

    public static func == (lhs: Fix, rhs: Fix) -> Bool {
        lhs.userId == rhs.userId && lhs.createdAt == rhs.createdAt && lhs.position == rhs.position
            && lhs.accuracy.bitPattern == rhs.accuracy.bitPattern && lhs.speed.bitPattern == rhs.speed.bitPattern
            && lhs.course.bitPattern == rhs.course.bitPattern && lhs.altitude.bitPattern == rhs.altitude.bitPattern
            && lhs.replayed == rhs.replayed && lhs.deviceId == rhs.deviceId && lhs.metadata == rhs.metadata
    }
}
