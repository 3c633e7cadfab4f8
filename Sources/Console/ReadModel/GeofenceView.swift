/// A geofence drawn on the map.
public struct GeofenceView: Sendable, Equatable {
    public enum Shape: Sendable, Equatable {
        case circle(longitude: Double, latitude: Double, radius: Double)
        /// Rings of [longitude, latitude]; the first is the outline.
        case polygon([[[Double]]])
    }
    public var key: String
    public var tag: String
    public var externalId: String
    public var description: String?
    public var shape: Shape
}
