/// The area of a geofence: a circle, or a GeoJSON polygon (first ring outer, further rings holes).
public enum GeofenceShape: Sendable, Equatable {
    /// `radius` in meters.
    case circle(center: Coordinate, radius: Double)
    /// Rings of [lng, lat] points as GeoJSON gives them; each ring closed or not.
    case polygon(rings: [[Coordinate]])
}
