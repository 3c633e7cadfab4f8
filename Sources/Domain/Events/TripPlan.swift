/// What a trip is for: the options it was started (or last updated) with. Immutable and shared by
/// reference between states and events; an update makes a new plan.
public final class TripPlan: Sendable, Equatable {
    public let externalId: String
    public let destinationGeofenceTag: String?
    public let destinationGeofenceExternalId: String?
    public let destinationCoordinates: Coordinate?
    public let destinationRadius: Double
    public let mode: TravelMode
    /// Minutes.
    public let approachingThreshold: Int
    public let scheduledArrivalAt: UnixMillis?
    /// Minutes the predicted arrival may pass `scheduledArrivalAt` before the trip counts as delayed.
    public let delayThreshold: Int
    public let metadata: RawJSON?
    /// The trip expires this long after it started, ms.
    public let expiry: UnixMillis
    /// The destination geofence's id, when the destination is a geofence (hashed once, here).
    public let destinationGeofenceID: GeofenceID?

    public init(
        externalId: String, destinationGeofenceTag: String?, destinationGeofenceExternalId: String?,
        destinationCoordinates: Coordinate?, destinationRadius: Double, mode: TravelMode, approachingThreshold: Int,
        scheduledArrivalAt: UnixMillis?, delayThreshold: Int = 0, metadata: RawJSON?,
        expiry: UnixMillis = 24 * 3_600_000
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
        self.expiry = expiry
        if let tag = destinationGeofenceTag, let externalId = destinationGeofenceExternalId {
            destinationGeofenceID = GeofenceID(tag: tag, externalId: externalId)
        } else {
            destinationGeofenceID = nil
        }
    }

    /// Whether this plan goes where `other` goes.
    public func hasDestination(of other: TripPlan) -> Bool {
        destinationGeofenceID == other.destinationGeofenceID && destinationCoordinates == other.destinationCoordinates
            && destinationRadius == other.destinationRadius
    }

    public static func == (lhs: TripPlan, rhs: TripPlan) -> Bool {
        lhs === rhs
            || (lhs.externalId == rhs.externalId && lhs.destinationGeofenceTag == rhs.destinationGeofenceTag
                && lhs.destinationGeofenceExternalId == rhs.destinationGeofenceExternalId
                && lhs.destinationCoordinates == rhs.destinationCoordinates
                && lhs.destinationRadius == rhs.destinationRadius && lhs.mode == rhs.mode
                && lhs.approachingThreshold == rhs.approachingThreshold
                && lhs.scheduledArrivalAt == rhs.scheduledArrivalAt && lhs.delayThreshold == rhs.delayThreshold
                && lhs.metadata == rhs.metadata && lhs.expiry == rhs.expiry)
    }
}
