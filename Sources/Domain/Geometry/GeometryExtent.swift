/// Radar's `geometryCenter` and `geometryRadius`, which Radar gives for polygons too: a circle's
/// own; for a polygon, the centroid of its outer ring (area-weighted, in a flat frame around its
/// bounding box's center, so a polygon touching ±180° works) and the largest distance from it to a
/// vertex, meters.
public struct GeometryExtent: Sendable, Equatable {
    public var center: Coordinate
    public var radius: Double

    public init(center: Coordinate, radius: Double) {
        self.center = center
        self.radius = radius
    }

    /// The extent of `shape`; nil for a polygon without an outer ring of three points or more.
    public init?(_ shape: GeofenceShape) {
        switch shape {
        case let .circle(center, radius):
            self.init(center: center, radius: radius)
        case let .polygon(rings):
            guard let outer = rings.first, outer.count >= 3 else { return nil }
            let latitudes = outer.map { Int64($0.latitudeE7) }, longitudes = outer.map { Int64($0.longitudeE7) }
            let frame = LocalFrame(origin: Coordinate(
                latitudeE7: Int32((latitudes.min()! + latitudes.max()!) / 2),
                longitudeE7: Int32((longitudes.min()! + longitudes.max()!) / 2)))
            let points = outer.map { frame.project($0) }
            var twiceArea = 0.0, sumX = 0.0, sumY = 0.0
            for index in points.indices {
                let p = points[index], q = points[(index + 1) % points.count]
                let cross = p.x * q.y - q.x * p.y
                twiceArea += cross
                sumX += (p.x + q.x) * cross
                sumY += (p.y + q.y) * cross
            }
            let xs = points.map(\.x), ys = points.map(\.y)
            let mean = (x: xs.reduce(0, +) / Double(points.count), y: ys.reduce(0, +) / Double(points.count))
            // A ring with no area (all points on a line) has no area centroid: its vertices' mean.
            var (x, y) = abs(twiceArea) > 1e-6 ? (sumX / (3 * twiceArea), sumY / (3 * twiceArea)) : mean
            // A simple ring's centroid lies within its bounding box. One that crosses itself can have
            // almost no signed area and a centroid anywhere, off the globe too (a hostile geofence
            // crashed the conversion below): the vertices' mean then, which is always within.
            let margin = 1.0  // meters: rounding where a thin ring's centroid lies on an edge
            let withinBox = x >= xs.min()! - margin && x <= xs.max()! + margin && y >= ys.min()! - margin
                && y <= ys.max()! + margin
            if !withinBox { (x, y) = mean }  // also when not finite: every comparison with NaN is false
            var longitudeE7 = Int64(frame.origin.longitudeE7) + Int64((x / frame.metersPerLngE7).rounded())
            if longitudeE7 > 1_800_000_000 { longitudeE7 -= 3_600_000_000 }
            if longitudeE7 < -1_800_000_000 { longitudeE7 += 3_600_000_000 }
            let latitudeE7 = min(max(Int64(frame.origin.latitudeE7) + Int64((y / LocalFrame.metersPerLatE7).rounded()),
                                     -Int64(Coordinate.maxLatitudeE7)), Int64(Coordinate.maxLatitudeE7))
            // Whole meters, rounded up: every vertex is within.
            let radius = (points.map { (($0.x - x) * ($0.x - x) + ($0.y - y) * ($0.y - y)).squareRoot() }.max() ?? 0)
                .rounded(.up)
            self.init(center: Coordinate(latitudeE7: Int32(latitudeE7), longitudeE7: Int32(longitudeE7)),
                      radius: radius)
        }
    }
}
