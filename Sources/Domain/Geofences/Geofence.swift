/// A geofence as the admin tools define it (`tripstream.geofences`, Radar's geofence fields).
///
/// Immutable and shared by reference: the table, user states and events all point at one copy.
public final class Geofence: Sendable {
    public let id: GeofenceID
    public let tag: String
    public let externalId: String
    public let description: String
    public let shape: GeofenceShape
    public let metadata: RawJSON?
    public let enabled: Bool
    /// Minutes inside after which `user.dwelled_in_geofence` fires; nil: never.
    public let dwellThreshold: Int?
    /// Radar's stop detection: entered only once the user has stopped inside (`FoldSettings.stopSpeed`
    /// for `stopDuration`).
    public let stopDetection: Bool
    /// Radar's `disableAfter` / `deleteAfter`: from these instants (event time) on, the geofence
    /// behaves as disabled / deleted.
    public let disableAfter: UnixMillis?
    public let deleteAfter: UnixMillis?
    /// The earlier of the two, `.max` when neither: no entry at or after it, and users inside exit then.
    public let scheduledEnd: UnixMillis
    /// Precomputed geometry for fast containment and distance tests.
    public let geometry: GeofenceGeometry
    /// Radar's `geometryCenter`/`geometryRadius` (see `GeometryExtent`); nil for a shape without one.
    public let extent: GeometryExtent?
    /// A stable hash of the definition (`contentHash(...)`), for the table's fingerprint.
    public let contentHash: UInt64

    public init(
        tag: String, externalId: String, description: String = "", shape: GeofenceShape,
        metadata: RawJSON? = nil, enabled: Bool = true, dwellThreshold: Int? = nil, stopDetection: Bool = false,
        disableAfter: UnixMillis? = nil, deleteAfter: UnixMillis? = nil, extent: GeometryExtent? = nil
    ) {
        self.id = GeofenceID(tag: tag, externalId: externalId)
        self.tag = tag
        self.externalId = externalId
        self.description = description
        self.shape = shape
        self.metadata = metadata
        self.enabled = enabled
        self.dwellThreshold = dwellThreshold
        self.stopDetection = stopDetection
        self.disableAfter = disableAfter
        self.deleteAfter = deleteAfter
        self.scheduledEnd = min(disableAfter ?? .max, deleteAfter ?? .max)
        self.geometry = GeofenceGeometry(shape)
        // Given only by an event decoded back, whose polygon has no rings to compute it from.
        self.extent = extent ?? GeometryExtent(shape)
        contentHash = Self.contentHash(
            tag: tag, externalId: externalId, description: description, shape: shape, metadata: metadata,
            enabled: enabled, dwellThreshold: dwellThreshold, stopDetection: stopDetection,
            disableAfter: disableAfter, deleteAfter: deleteAfter)
    }
}

extension Geofence {
    /// Why a visit ends at `scheduledEnd`: a deletion wins a tie.
    public var scheduledEndReason: ExitReason {
        scheduledEnd == deleteAfter ? .geofenceDeleted : .geofenceDisabled
    }

    /// Whether the fold must look at this geofence beyond its shape: a stop to wait for or an end to schedule.
    public var hasFoldOptions: Bool { stopDetection || scheduledEnd != .max }
}
