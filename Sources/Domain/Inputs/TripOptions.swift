/// The trip part of a trip command, named as RadarTripOptions.
///
/// In a `start` command absent fields take defaults; in an `update` command an absent field keeps
/// the trip's current value. `complete` and `cancel` need only `externalId`.
public struct TripOptions: Sendable, Equatable {
    public var externalId: String
    public var destinationGeofenceTag: String?
    public var destinationGeofenceExternalId: String?
    /// Destination given as a point instead of a geofence (`destinationCoordinates`, [lng, lat]).
    public var destinationCoordinates: Coordinate?
    /// Radius in meters of the destination when it is given as coordinates.
    public var destinationRadius: Double?
    public var mode: TravelMode?
    /// Minutes of ETA at which the trip becomes `approaching`.
    public var approachingThreshold: Int?
    public var scheduledArrivalAt: UnixMillis?
    /// Minutes of predicted lateness past `scheduledArrivalAt` before `user.delayed_during_trip`
    /// (TripStream's; absent: `FoldSettings.defaultDelayThreshold`).
    public var delayThreshold: Int?
    public var metadata: RawJSON?
    /// Minutes after its start at which the trip expires (TripStream's; absent:
    /// `FoldSettings.tripExpiry`).
    public var expiresAfter: Int?
    /// When the trip reports `user.arrived_at_wrong_trip_destination` (TripStream's; absent:
    /// `FoldSettings.wrongDestination`).
    public var wrongDestination: WrongDestinationRule?
    /// The status to set (Radar's update-trip `status`): `pending` or `started` in a start,
    /// `started`, `approaching`, `arrived`, `completed` or `canceled` in an update.
    public var status: TripStatus?
    /// A multi-leg trip's legs, in order (`start`), or legs to append (`addLegs`).
    public var legs: [TripLeg]?
    /// The leg an `updateLeg` is about.
    public var legId: String?
    /// The new order of the trip's pending legs (`reorderLegs`).
    public var legIds: [String]?

    public init(
        externalId: String, destinationGeofenceTag: String? = nil, destinationGeofenceExternalId: String? = nil,
        destinationCoordinates: Coordinate? = nil, destinationRadius: Double? = nil, mode: TravelMode? = nil,
        approachingThreshold: Int? = nil, scheduledArrivalAt: UnixMillis? = nil, delayThreshold: Int? = nil,
        metadata: RawJSON? = nil, expiresAfter: Int? = nil, status: TripStatus? = nil, legs: [TripLeg]? = nil,
        legId: String? = nil, legIds: [String]? = nil, wrongDestination: WrongDestinationRule? = nil
    ) {
        self.externalId = externalId
        self.destinationGeofenceTag = destinationGeofenceTag
        self.destinationGeofenceExternalId = destinationGeofenceExternalId
        self.destinationCoordinates = destinationCoordinates
        self.destinationRadius = destinationRadius
        self.mode = mode
        self.approachingThreshold = approachingThreshold
        self.scheduledArrivalAt = scheduledArrivalAt
        self.delayThreshold = delayThreshold
        self.metadata = metadata
        self.expiresAfter = expiresAfter
        self.status = status
        self.legs = legs
        self.legId = legId
        self.legIds = legIds
        self.wrongDestination = wrongDestination
    }
}
