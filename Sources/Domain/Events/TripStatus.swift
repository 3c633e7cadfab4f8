/// Trip lifecycle: (pending →) started → approaching → arrived → completed; or canceled / expired.
/// Raw values are persisted: new cases go at the end.
public enum TripStatus: UInt8, CaseIterable, Sendable {
    case started, approaching, arrived, completed, canceled, expired
    /// Created but not started (Radar's `pending`): no ETA or arrival until an update starts it.
    case pending

    public var name: String {
        switch self {
        case .started: "started"
        case .approaching: "approaching"
        case .arrived: "arrived"
        case .completed: "completed"
        case .canceled: "canceled"
        case .expired: "expired"
        case .pending: "pending"
        }
    }

    /// Tracked: ETA, approaching, arrival.
    public var isActive: Bool { self == .started || self == .approaching || self == .arrived }
    /// Active and not arrived yet: when a quiet device is news (`user.trip_signal_lost`).
    public var isOnTheWay: Bool { self == .started || self == .approaching }
    /// Not stopped yet: active or pending.
    public var isOpen: Bool { isActive || self == .pending }

    /// Whether a command may move a trip from this status to `next`, as Radar's update-trip call
    /// does: forward only (pending → started → approaching → arrived), or to completed/canceled
    /// from any open status; never to `expired` (a timer's) nor back to `pending`. Staying is allowed.
    public func allowsCommand(to next: TripStatus) -> Bool {
        if next == self { return isOpen }
        switch next {
        case .pending, .expired: return false
        case .completed, .canceled: return isOpen
        case .started: return self == .pending
        case .approaching: return self == .started
        case .arrived: return self == .started || self == .approaching
        }
    }
}
