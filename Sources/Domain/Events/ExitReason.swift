/// Why a visit ended (`user.exited_geofence`'s `exitReason`, TripStream's own member). A plain exit,
/// the user leaving, writes none.
public enum ExitReason: UInt8, CaseIterable, Sendable {
    case userLeft
    /// The geofence was disabled (`enabled: false`, or its `disableAfter` passed) while the user was inside.
    case geofenceDisabled
    /// The geofence was deleted (a null value on the geofence topic, or its `deleteAfter` passed).
    case geofenceDeleted

    public var name: String {
        switch self {
        case .userLeft: "user_left"
        case .geofenceDisabled: "geofence_disabled"
        case .geofenceDeleted: "geofence_deleted"
        }
    }

    public init?(name: String) {
        guard let reason = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = reason
    }
}
