/// Trip lifecycle: started → approaching → arrived → completed; or canceled / expired.
public enum TripStatus: UInt8, CaseIterable, Sendable {
    case started, approaching, arrived, completed, canceled, expired

    public var name: String {
        switch self {
        case .started: "started"
        case .approaching: "approaching"
        case .arrived: "arrived"
        case .completed: "completed"
        case .canceled: "canceled"
        case .expired: "expired"
        }
    }

    public var isActive: Bool { self == .started || self == .approaching || self == .arrived }
}
