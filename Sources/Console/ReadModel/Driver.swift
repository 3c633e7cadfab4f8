/// A driver as the map draws it: the newest state the users topic holds for it.
public struct Driver: Sendable, Equatable {
    public var id: String
    public var longitude: Double
    public var latitude: Double
    /// Event time of the newest fix, ms since 1970 (0 when unknown).
    public var lastFixAt: Int64
    public var speed: Double?
    /// The user's current trip while it is active (pending, started, approaching, arrived).
    public var activeTrip: String?
    public var delayed: Bool
}
