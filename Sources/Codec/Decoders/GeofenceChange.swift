import Domain

/// One record of the compacted `tripstream.geofences` topic, decoded.
public enum GeofenceChange: Sendable {
    /// Create or replace the geofence with this `tag/externalId`.
    case upsert(Geofence)
    /// Remove the geofence (a null or empty value: a tombstone).
    case delete(GeofenceID, tag: String, externalId: String)
}

extension GeofenceTable {
    /// Upserts or removes the geofence `change` names.
    public mutating func apply(_ change: GeofenceChange) {
        switch change {
        case let .upsert(geofence): upsert(geofence)
        case let .delete(id, _, _): remove(id)
        }
    }
}
