/// One stop of a multi-leg trip (Radar's trip legs): a destination, how long the user stops there,
/// and how the leg ended.
///
/// A trip does its legs in order. The first leg still `pending` is the current one: the trip's
/// destination, ETA, approaching and arrival are the current leg's, and events show the current
/// leg with the trip's status. A leg is done `stopDuration` minutes after arriving, or on leaving
/// its destination before that; the trip completes after its last leg.
public struct TripLeg: Sendable, Equatable {
    /// Radar's `_id`: the caller's, else `leg-N`, N counting the trip's legs in the order they were added.
    public var id: String
    public var destinationGeofenceTag: String?
    public var destinationGeofenceExternalId: String?
    /// A destination given as a point instead of a geofence.
    public var destinationCoordinates: Coordinate?
    /// Radar's `arrivalRadius` around `destinationCoordinates`, meters; nil: the service default.
    public var arrivalRadius: Double?
    /// Minutes the user stops at the destination before the leg is done.
    public var stopDuration: Int
    public var metadata: RawJSON?
    /// `pending` until the leg is done: then `completed`, `canceled` (skipped) or `expired` (with the trip).
    public var status: TripStatus
    /// When the user arrived at this leg's destination, once the leg is done (the current leg's is the trip's).
    public var arrivedAt: UnixMillis?

    public init(
        id: String = "", destinationGeofenceTag: String? = nil, destinationGeofenceExternalId: String? = nil,
        destinationCoordinates: Coordinate? = nil, arrivalRadius: Double? = nil, stopDuration: Int = 0,
        metadata: RawJSON? = nil, status: TripStatus = .pending, arrivedAt: UnixMillis? = nil
    ) {
        self.id = id
        self.destinationGeofenceTag = destinationGeofenceTag
        self.destinationGeofenceExternalId = destinationGeofenceExternalId
        self.destinationCoordinates = destinationCoordinates
        self.arrivalRadius = arrivalRadius
        self.stopDuration = stopDuration
        self.metadata = metadata
        self.status = status
        self.arrivedAt = arrivedAt
    }

    /// Legs as a command brings them, added after `existing`: pending, each with an id.
    /// - Returns: nil if an id would repeat (the caller's, or one given before).
    public static func adding(_ incoming: [TripLeg], to existing: [TripLeg]) -> [TripLeg]? {
        var legs = existing
        var ids = Set(existing.map(\.id))
        for var leg in incoming {
            if leg.id.isEmpty { leg.id = "leg-\(legs.count + 1)" }
            guard ids.insert(leg.id).inserted else { return nil }
            leg.status = .pending
            leg.arrivedAt = nil
            legs.append(leg)
        }
        return legs
    }
}
