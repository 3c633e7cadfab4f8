/// The derived events, named as Radar's webhooks name them.
public enum EventType: UInt8, CaseIterable, Sendable {
    case enteredGeofence
    case exitedGeofence
    case dwelledInGeofence
    case startedTrip
    case updatedTrip
    case approachingTripDestination
    case arrivedAtTripDestination
    case stoppedTrip
    /// The predicted arrival first passed the trip's `scheduledArrivalAt` by more than its
    /// `delayThreshold` (Radar's delay detection); once a trip.
    case delayedDuringTrip
    /// During a trip, the user entered a geofence with the destination's tag but another externalId.
    case arrivedAtWrongTripDestination
    /// No fix for `FoldSettings.tripSignalLostAfter` during an active trip (TripStream's; a stream-time timer).
    case tripSignalLost
    /// The first fix after `tripSignalLost`; `duration` is the gap.
    case tripSignalRestored
    /// The ETA rose on every fix for `FoldSettings.movingAwayAfter` (TripStream's; no-show risk).
    case movingAwayFromTripDestination

    public var name: String {
        switch self {
        case .enteredGeofence: "user.entered_geofence"
        case .exitedGeofence: "user.exited_geofence"
        case .dwelledInGeofence: "user.dwelled_in_geofence"
        case .startedTrip: "user.started_trip"
        case .updatedTrip: "user.updated_trip"
        case .approachingTripDestination: "user.approaching_trip_destination"
        case .arrivedAtTripDestination: "user.arrived_at_trip_destination"
        case .stoppedTrip: "user.stopped_trip"
        case .delayedDuringTrip: "user.delayed_during_trip"
        case .arrivedAtWrongTripDestination: "user.arrived_at_wrong_trip_destination"
        case .tripSignalLost: "user.trip_signal_lost"
        case .tripSignalRestored: "user.trip_signal_restored"
        case .movingAwayFromTripDestination: "user.moving_away_from_trip_destination"
        }
    }

    public init?(name: String) {
        guard let type = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = type
    }
}
