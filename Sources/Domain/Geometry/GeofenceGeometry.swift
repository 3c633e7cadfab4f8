#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A geofence shape prepared for the two questions the fold asks on every fix: is the point
/// inside, and how far is it from the boundary.
///
/// Across the antimeridian: a circle's bounding box wraps (`BoundingBox.crossesAntimeridian`) and
/// its distances go the short way round, so a circle centred at 179.9° holds a fix at -179.95°.
/// A polygon's ring is drawn as GeoJSON gives it, and a point is measured the short way round from
/// the polygon's center, so the halves of a polygon split at ±180° (RFC 7946 §3.1.9) work. A shape
/// with a `GeofenceShape.problem` (which the decoder rejects) is inert: an empty box, no point
/// inside, an infinite distance.
public struct GeofenceGeometry: Sendable {
    @usableFromInline enum Prepared: Sendable {
        case circle(center: Coordinate, radius: Double)
        /// Rings projected into `frame`, as flat x,y arrays; ring 0 is the outer ring.
        case polygon(frame: LocalFrame, rings: [[Double]])
        /// A shape with a problem: contains nothing.
        case inert
    }

    @usableFromInline let prepared: Prepared
    public let boundingBox: BoundingBox
    /// Radius of the shape's extent, meters; scales the hysteresis buffer.
    public let characteristicRadius: Double

    public init(_ shape: GeofenceShape) {
        if case let .polygon(rings) = shape, rings.first?.isEmpty ?? true {
            // No outer ring (how an event decoded back describes a polygon): contains nothing.
            prepared = .polygon(frame: LocalFrame(origin: Coordinate(latitudeE7: 0, longitudeE7: 0)), rings: [])
            boundingBox = .empty
            characteristicRadius = 0
            return
        }
        guard shape.problem == nil else {
            prepared = .inert
            boundingBox = .empty
            characteristicRadius = 0
            return
        }
        switch shape {
        case let .circle(center, radius):
            prepared = .circle(center: center, radius: radius)
            boundingBox = Self.circleBox(center: center, radius: radius)
            characteristicRadius = radius
        case let .polygon(rings):
            let outer = rings[0]
            var box = BoundingBox(minLatE7: .max, minLngE7: .max, maxLatE7: .min, maxLngE7: .min)
            for c in outer {
                box.minLatE7 = min(box.minLatE7, c.latitudeE7)
                box.maxLatE7 = max(box.maxLatE7, c.latitudeE7)
                box.minLngE7 = min(box.minLngE7, c.longitudeE7)
                box.maxLngE7 = max(box.maxLngE7, c.longitudeE7)
            }
            boundingBox = box
            let origin = Coordinate(
                latitudeE7: Int32((Int64(box.minLatE7) + Int64(box.maxLatE7)) / 2),
                longitudeE7: Int32((Int64(box.minLngE7) + Int64(box.maxLngE7)) / 2))
            let frame = LocalFrame(origin: origin)
            var projected: [[Double]] = []
            for ring in rings {
                var flat: [Double] = []
                flat.reserveCapacity(ring.count * 2 + 2)
                for c in ring {
                    let p = frame.project(c)
                    flat.append(p.x)
                    flat.append(p.y)
                }
                // Close the ring so edge iteration needs no wrap-around.
                if flat.count >= 2, flat[0] != flat[flat.count - 2] || flat[1] != flat[flat.count - 1] {
                    flat.append(flat[0])
                    flat.append(flat[1])
                }
                projected.append(flat)
            }
            prepared = .polygon(frame: frame, rings: projected)
            let corner = frame.project(Coordinate(latitudeE7: box.maxLatE7, longitudeE7: box.maxLngE7))
            characteristicRadius = max(abs(corner.x), abs(corner.y))
        }
    }

    /// A box holding every point within `radius` of `center` as `Geodesy.distance` measures it,
    /// wrapped across the antimeridian when the circle crosses it (or touches it: 180° and -180°
    /// are one meridian), all longitudes when it reaches a pole.
    static func circleBox(center: Coordinate, radius: Double) -> BoundingBox {
        let dLat = radius / Geodesy.metersPerDegree
        let south = center.latitude - dLat, north = center.latitude + dLat
        let minLatE7 = Self.e7(max(south, -90), rounding: .down)
        let maxLatE7 = Self.e7(min(north, 90), rounding: .up)
        // `Geodesy.distance` scales longitude by the cosine of the pair's mean latitude, smallest
        // for the point farthest from the equator: bound it with the circle's farthest latitude.
        let farthest = max(abs(south), abs(north))
        let cosine = farthest < 90 ? cos(farthest * Double.pi / 180) : 0
        guard cosine > 0, dLat < 180 * cosine else {
            // Reaches a pole, or wider than the world: every longitude.
            return BoundingBox(minLatE7: minLatE7, minLngE7: -Coordinate.maxLongitudeE7, maxLatE7: maxLatE7,
                               maxLngE7: Coordinate.maxLongitudeE7)
        }
        let dLng = dLat / cosine
        var west = center.longitude - dLng, east = center.longitude + dLng
        if west <= -180 { west += 360 }
        if east >= 180 { east -= 360 }
        return BoundingBox(minLatE7: minLatE7, minLngE7: Self.e7(west, rounding: .down), maxLatE7: maxLatE7,
                           maxLngE7: Self.e7(east, rounding: .up))
    }

    /// Degrees to fixed point, rounded outwards so that a box never loses its edge to rounding.
    private static func e7(_ degrees: Double, rounding: FloatingPointRoundingRule) -> Int32 {
        Int32((degrees * 1e7).rounded(rounding))
    }

    /// Signed distance in meters from `point` to the boundary: negative inside, positive outside.
    public func signedDistance(to point: Coordinate) -> Double {
        switch prepared {
        case let .circle(center, radius):
            return Geodesy.distance(center, point) - radius
        case .inert:
            return .infinity
        case let .polygon(frame, rings):
            let p = frame.project(point)
            var scan = RingScan(x: p.x, y: p.y)
            for ring in rings { ring.withUnsafeBufferPointer { scan.add($0) } }
            return scan.signedDistance
        }
    }

    /// A point against a polygon's rings, ring by ring: the even-odd crossings and the nearest edge.
    /// The one place the polygon distance is computed, so the spatial index's copy of the rings
    /// (`PolygonRings`) gives the same bits as the geometry.
    struct RingScan {
        let x: Double, y: Double
        private var inside = false
        private var nearest = Double.infinity

        init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }

        /// Scans one closed ring of flat x,y values (projected in the polygon's frame).
        @inline(__always)
        mutating func add(_ ring: UnsafeBufferPointer<Double>) {
            var i = 0
            while i + 3 < ring.count {
                let ax = ring[i], ay = ring[i + 1], bx = ring[i + 2], by = ring[i + 3]
                if (ay > y) != (by > y), x < (bx - ax) * (y - ay) / (by - ay) + ax {
                    inside.toggle()  // even-odd: holes toggle back to outside
                }
                nearest = min(nearest, GeofenceGeometry.segmentDistance(x, y, ax, ay, bx, by))
                i += 2
            }
        }

        /// Negative inside, positive outside.
        var signedDistance: Double { inside ? -nearest : nearest }
    }

    @inline(__always)
    static func segmentDistance(_ px: Double, _ py: Double, _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double)
        -> Double
    {
        let dx = bx - ax, dy = by - ay
        let lengthSquared = dx * dx + dy * dy
        var t = lengthSquared > 0 ? ((px - ax) * dx + (py - ay) * dy) / lengthSquared : 0
        t = min(max(t, 0), 1)
        let ex = ax + t * dx - px, ey = ay + t * dy - py
        return (ex * ex + ey * ey).squareRoot()
    }
}
