/// When a trip's user counts as at the wrong destination: in a geofence with the destination's tag
/// but another externalId (a chain's other store, a depot's other dock).
///
/// Radar fires on entry. On real rides an entry is mostly a drive-through: a taxi crossing another
/// ride's drop-off circle, a courier passing a store of the same chain. A dispatcher acts on a stop.
public enum WrongDestinationRule: UInt8, CaseIterable, Sendable {
    /// Once the user has stopped inside (every fix slower than `FoldSettings.stopSpeed` for
    /// `stopDuration`), once a visit. The default.
    case stop
    /// On entering, as Radar's `user.arrived_at_wrong_trip_destination`.
    case entry
    /// Never.
    case off

    public var name: String {
        switch self {
        case .stop: "stop"
        case .entry: "entry"
        case .off: "off"
        }
    }

    public init?(name: String) {
        guard let rule = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = rule
    }
}
