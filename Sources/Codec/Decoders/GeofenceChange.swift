import Domain

/// One record of the compacted `tripstream.geofences` topic, decoded.
public enum GeofenceChange: Sendable {
    /// Create or replace the geofence with this `tag/externalId`.
    case upsert(Geofence)
    /// Remove the geofence (a null or empty value: a tombstone).
    case delete(GeofenceID, tag: String, externalId: String)
}
