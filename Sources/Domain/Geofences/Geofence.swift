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
    /// Precomputed geometry for fast containment and distance tests.
    public let geometry: GeofenceGeometry
    /// Radar's `geometryCenter`/`geometryRadius` (see `GeometryExtent`); nil for a shape without one.
    public let extent: GeometryExtent?

    public init(
        tag: String, externalId: String, description: String = "", shape: GeofenceShape,
        metadata: RawJSON? = nil, enabled: Bool = true, dwellThreshold: Int? = nil, extent: GeometryExtent? = nil
    ) {
        self.id = GeofenceID(tag: tag, externalId: externalId)
        self.tag = tag
        self.externalId = externalId
        self.description = description
        self.shape = shape
        self.metadata = metadata
        self.enabled = enabled
        self.dwellThreshold = dwellThreshold
        self.geometry = GeofenceGeometry(shape)
        // Given only by an event decoded back, whose polygon has no rings to compute it from.
        self.extent = extent ?? GeometryExtent(shape)
    }
}
