/// The area of a geofence: a circle, or a GeoJSON polygon (first ring outer, further rings holes).
public enum GeofenceShape: Sendable, Equatable {
    /// `radius` in meters.
    case circle(center: Coordinate, radius: Double)
    /// Rings of [lng, lat] points as GeoJSON gives them; each ring closed or not.
    case polygon(rings: [[Coordinate]])
}

extension GeofenceShape {
    /// How far from the equator a geofence may reach: 89°, north or south (111 km from the poles).
    /// Beyond it the fold's flat-earth distances are off by more than 1.5%, a circle may wrap
    /// around a pole, and a polygon holding a pole cannot be drawn without crossing the antimeridian.
    public static let maxAbsLatitudeE7: Int32 = 890_000_000

    /// Why the shape cannot be a geofence, or nil when it can. The geofence decoder rejects such a
    /// shape (`invalid_geometry`, with this text as the detail); `GeofenceGeometry` makes one
    /// built directly inert (it contains no point) rather than wrong.
    ///
    /// - A position out of range, or a circle radius that is negative or not finite.
    /// - Any part beyond ±89° latitude (`maxAbsLatitudeE7`); for a circle, its center ± radius.
    /// - A polygon edge spanning more than 180° of longitude: GeoJSON draws it as a straight line
    ///   across the map (the long way round), but it almost always means a polygon crossing the
    ///   antimeridian, which RFC 7946 §3.1.9 says to split in two. Such a polygon is refused
    ///   rather than guessed at. Polygons that touch ±180° (the two halves of a split one) work.
    ///
    /// Circles may cross the antimeridian: their bounding box wraps (see `BoundingBox`) and
    /// distances go the short way round.
    public var problem: String? {
        switch self {
        case let .circle(center, radius):
            guard center.isValid else { return "circle center \(Self.text(center)) is out of range" }
            guard radius.isFinite, radius >= 0 else { return "circle radius \(radius) m is not a distance" }
            let reach = abs(center.latitude) + radius / Geodesy.metersPerDegree
            if reach > Double(Self.maxAbsLatitudeE7) / 1e7 {
                return "circle reaches latitude \(Self.degrees(reach, decimals: 4))°\(center.latitudeE7 < 0 ? "S" : "N") "
                    + "(center \(Self.text(center)), radius \(Self.meters(radius)) m): geofences must stay within ±89° "
                    + "of latitude, away from the poles"
            }
            return nil
        case let .polygon(rings):
            for (r, ring) in rings.enumerated() {
                for (i, c) in ring.enumerated() {
                    guard c.isValid else { return "polygon ring \(r) position \(i) \(Self.text(c)) is out of range" }
                    if c.latitudeE7 > Self.maxAbsLatitudeE7 || c.latitudeE7 < -Self.maxAbsLatitudeE7 {
                        return "polygon ring \(r) position \(i) \(Self.text(c)) is beyond ±89° of latitude: "
                            + "geofences must stay away from the poles"
                    }
                }
                // Every edge, the closing one included when the ring is not closed.
                for (i, a) in ring.enumerated() {
                    let j = i + 1 < ring.count ? i + 1 : 0
                    let b = ring[j]
                    let span = abs(Int64(b.longitudeE7) - Int64(a.longitudeE7))
                    if span > Int64(Coordinate.maxLongitudeE7) {
                        return "polygon crosses the antimeridian: ring \(r) edge from position \(i) \(Self.text(a)) "
                            + "to position \(j) \(Self.text(b)) spans \(Self.degrees(Double(span) / 1e7))° of "
                            + "longitude; split it into two polygons as RFC 7946 §3.1.9 recommends"
                    }
                }
            }
            return nil
        }
    }

    private static func meters(_ value: Double) -> String {
        value.magnitude < 1e15 && value == value.rounded() ? String(Int64(value)) : "\(value)"
    }

    /// `[lng, lat]` as GeoJSON writes it.
    private static func text(_ c: Coordinate) -> String { "[\(degrees(c.longitude)), \(degrees(c.latitude))]" }

    /// Degrees to at most `decimals` (≤ 7) decimals, without trailing zeros in the fraction.
    private static func degrees(_ value: Double, decimals: Int = 7) -> String {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int64((value * Double(scale)).rounded())
        let sign = scaled < 0 ? "-" : ""
        let magnitude = scaled.magnitude
        var fraction = String(magnitude % UInt64(scale))
        fraction = String(repeating: "0", count: decimals - fraction.count) + fraction
        while fraction.last == "0" { fraction.removeLast() }
        return "\(sign)\(magnitude / UInt64(scale))" + (fraction.isEmpty ? "" : ".\(fraction)")
    }
}
