/// A derived event, shaped as Radar's webhook events.
///
/// `actualCreatedAt` (processing time) is not part of the event: the runtime supplies it when it
/// encodes, so that the fold stays free of clocks and two folds of one history compare equal.
public struct Event: Sendable, Equatable {
    public var id: EventID
    public var type: EventType
    public var userId: String
    /// Event time: the time of the fix (or command, or timer) that caused the event.
    public var createdAt: UnixMillis
    /// Radar's `replayed`: the event comes from a fix the device sent from its offline buffer, or
    /// from a refold that placed late inputs behind newer ones (corrections and retractions too).
    public var replayed: Bool
    /// Event time lags processing time by more than `FoldSettings.lateLag` (a slow pipeline, a
    /// backlog, a late command). Stamped by `PartitionFold`; not Radar's, and not about offline replay.
    public var late: Bool
    public var revision: EventRevision
    /// The user's location at the event; nil when no fix is known yet (a trip started first).
    public var location: Coordinate?
    /// Meters; NaN when unknown.
    public var locationAccuracy: Float
    public var deviceId: String?
    public var userMetadata: RawJSON?
    public var geofence: Geofence?
    /// Seconds inside the geofence, for `user.exited_geofence` (printed as minutes).
    public var durationSeconds: Int32?
    /// Radar's confidence, for `user.entered_geofence` and `user.exited_geofence`.
    public var confidence: EventConfidence?
    /// Why a visit ended, for `user.exited_geofence`; nil for a plain exit (the user left).
    public var exitReason: ExitReason?
    public var trip: TripSnapshot?

    /// Equal content: everything but `replayed`, `late` and `revision`, which describe the publication, not the
    /// event. This is what decides whether a refold corrected an event.
    public func hasSameContent(as other: Event) -> Bool {
        id == other.id && type == other.type && userId == other.userId && createdAt == other.createdAt
            && location == other.location && locationAccuracy.bitPattern == other.locationAccuracy.bitPattern
            && deviceId == other.deviceId && userMetadata == other.userMetadata && geofence === other.geofence
            && durationSeconds == other.durationSeconds && confidence == other.confidence
            && exitReason == other.exitReason && trip == other.trip
    }

    public static func == (lhs: Event, rhs: Event) -> Bool {
        lhs.hasSameContent(as: rhs) && lhs.replayed == rhs.replayed && lhs.late == rhs.late && lhs.revision == rhs.revision
    }
}

extension Event {
    // In an extension, so that Swift also synthesizes the memberwise initializer (`makeEvent` builds
    // its events with that one: through this one, each event was built twice, one copy retained and
    // the other released).
    public init(
        id: EventID, type: EventType, userId: String, createdAt: UnixMillis, replayed: Bool = false, late: Bool = false,
        revision: EventRevision = .original, location: Coordinate?, locationAccuracy: Float = .nan,
        deviceId: String? = nil, userMetadata: RawJSON? = nil, geofence: Geofence? = nil,
        durationSeconds: Int32? = nil, trip: TripSnapshot? = nil, confidence: EventConfidence? = nil,
        exitReason: ExitReason? = nil
    ) {
        self.id = id
        self.type = type
        self.userId = userId
        self.createdAt = createdAt
        self.replayed = replayed
        self.late = late
        self.revision = revision
        self.location = location
        self.locationAccuracy = locationAccuracy
        self.deviceId = deviceId
        self.userMetadata = userMetadata
        self.geofence = geofence
        self.durationSeconds = durationSeconds
        self.trip = trip
        self.confidence = confidence
        self.exitReason = exitReason
    }
}
