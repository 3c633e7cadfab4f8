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
    /// When the trip reports a same-tag geofence that is not its destination.
    public let wrongDestination: WrongDestinationRule
    /// A multi-leg trip's legs (empty: a trip to one destination). The destination fields above
    /// are the current leg's.
    public let legs: [TripLeg]
    /// Where the current leg (the first pending one) is in `legs`.
    public let currentLegIndex: Int?
    /// The destination geofence's id, when the destination is a geofence (hashed once, here).
    public let destinationGeofenceID: GeofenceID?
    /// What of the plan varies in length, measured once: an encoder sizes its buffer from it on
    /// every event of the trip (one per fix), where walking the legs' strings each time cost more
    /// than the trip's part of the encoding.
    public let textExtent: TextExtent

    /// The UTF-8 bytes and the number of a plan's strings (the mode's name and the legs' strings
    /// included, each once) and the bytes of its metadata, the legs' included.
    public struct TextExtent: Sendable, Equatable {
        public var stringBytes = 0
        public var strings = 0
        public var jsonBytes = 0

        mutating func add(_ string: String?) {
            guard let string else { return }
            stringBytes &+= string.utf8.count
            strings &+= 1
        }

        mutating func add(_ json: RawJSON?) { jsonBytes &+= json?.bytes.count ?? 0 }
    }

    public init(
        externalId: String, destinationGeofenceTag: String?, destinationGeofenceExternalId: String?,
        destinationCoordinates: Coordinate?, destinationRadius: Double, mode: TravelMode, approachingThreshold: Int,
        scheduledArrivalAt: UnixMillis?, delayThreshold: Int = 0, metadata: RawJSON?,
        expiry: UnixMillis = 24 * 3_600_000, legs: [TripLeg] = [], wrongDestination: WrongDestinationRule = .stop
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
        self.legs = legs
        self.wrongDestination = wrongDestination
        currentLegIndex = legs.firstIndex { $0.status == .pending }
        if let tag = destinationGeofenceTag, let externalId = destinationGeofenceExternalId {
            destinationGeofenceID = GeofenceID(tag: tag, externalId: externalId)
        } else {
            destinationGeofenceID = nil
        }
        var extent = TextExtent()
        extent.add(externalId)
        extent.add(mode.name)
        extent.add(destinationGeofenceTag)
        extent.add(destinationGeofenceExternalId)
        extent.add(metadata)
        for leg in legs {
            extent.add(leg.id)
            extent.add(leg.destinationGeofenceTag)
            extent.add(leg.destinationGeofenceExternalId)
            extent.add(leg.metadata)
        }
        textExtent = extent
    }

    public var currentLeg: TripLeg? { currentLegIndex.map { legs[$0] } }

    /// This plan with `legs`, heading for the current one (or where it was headed, if none is left).
    public func with(legs: [TripLeg], defaultRadius: Double) -> TripPlan {
        let leg = legs.first { $0.status == .pending }
        return TripPlan(
            externalId: externalId, destinationGeofenceTag: leg.map { $0.destinationGeofenceTag } ?? destinationGeofenceTag,
            destinationGeofenceExternalId: leg.map { $0.destinationGeofenceExternalId } ?? destinationGeofenceExternalId,
            destinationCoordinates: leg.map { $0.destinationCoordinates } ?? destinationCoordinates,
            destinationRadius: leg.map { $0.arrivalRadius ?? defaultRadius } ?? destinationRadius, mode: mode,
            approachingThreshold: approachingThreshold, scheduledArrivalAt: scheduledArrivalAt,
            delayThreshold: delayThreshold, metadata: metadata, expiry: expiry, legs: legs,
            wrongDestination: wrongDestination)
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
                && lhs.metadata == rhs.metadata && lhs.expiry == rhs.expiry && lhs.legs == rhs.legs
                && lhs.wrongDestination == rhs.wrongDestination)
    }
}
