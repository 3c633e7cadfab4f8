import Domain

/// One record the simulated fleet and its dispatch/admin tools publish, in arrival order.
public enum SimulatedRecord: Sendable {
    case geofence(Geofence)
    case command(TripCommand)
    case fix(Fix)

    public var userId: String? {
        switch self {
        case .geofence: nil
        case let .command(c): c.userId
        case let .fix(f): f.userId
        }
    }
}
