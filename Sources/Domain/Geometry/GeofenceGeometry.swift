#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A geofence shape prepared for the two questions the fold asks on every fix: is the point
/// inside, and how far is it from the boundary.
public struct GeofenceGeometry: Sendable {
    @usableFromInline enum Prepared: Sendable {
        case circle(center: Coordinate, radius: Double)
        /// Rings projected into `frame`, as flat x,y arrays; ring 0 is the outer ring.
        case polygon(frame: LocalFrame, rings: [[Double]])
    }

    @usableFromInline let prepared: Prepared
    public let boundingBox: BoundingBox
    /// Radius of the shape's extent, meters; scales the hysteresis buffer.
    public let characteristicRadius: Double

    public init(_ shape: GeofenceShape) {
        switch shape {
        case let .circle(center, radius):
            prepared = .circle(center: center, radius: radius)
            let dLat = radius / Geodesy.metersPerDegree
            let dLng = dLat / max(cos(center.latitude * Double.pi / 180), 0.01)
            boundingBox = BoundingBox(
                minLatE7: Self.clampLat(center.latitude - dLat), minLngE7: Self.clampLng(center.longitude - dLng),
                maxLatE7: Self.clampLat(center.latitude + dLat), maxLngE7: Self.clampLng(center.longitude + dLng))
            characteristicRadius = radius
        case let .polygon(rings):
            let outer = rings.first ?? []
            var box = BoundingBox(minLatE7: .max, minLngE7: .max, maxLatE7: .min, maxLngE7: .min)
            for c in outer {
                box.minLatE7 = min(box.minLatE7, c.latitudeE7)
                box.maxLatE7 = max(box.maxLatE7, c.latitudeE7)
                box.minLngE7 = min(box.minLngE7, c.longitudeE7)
                box.maxLngE7 = max(box.maxLngE7, c.longitudeE7)
            }
            if outer.isEmpty { box = BoundingBox(minLatE7: 0, minLngE7: 0, maxLatE7: -1, maxLngE7: -1) }
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
            characteristicRadius = outer.isEmpty ? 0 : max(abs(corner.x), abs(corner.y))
        }
    }

    private static func clampLat(_ v: Double) -> Int32 { Int32((min(max(v, -90), 90) * 1e7).rounded()) }
    private static func clampLng(_ v: Double) -> Int32 { Int32((min(max(v, -180), 180) * 1e7).rounded()) }

    /// Signed distance in meters from `point` to the boundary: negative inside, positive outside.
    public func signedDistance(to point: Coordinate) -> Double {
        switch prepared {
        case let .circle(center, radius):
            return Geodesy.distance(center, point) - radius
        case let .polygon(frame, rings):
            let p = frame.project(point)
            var inside = false
            var nearest = Double.infinity
            for ring in rings {
                var i = 0
                while i + 3 < ring.count {
                    let ax = ring[i], ay = ring[i + 1], bx = ring[i + 2], by = ring[i + 3]
                    if (ay > p.y) != (by > p.y), p.x < (bx - ax) * (p.y - ay) / (by - ay) + ax {
                        inside.toggle()  // even-odd: holes toggle back to outside
                    }
                    nearest = min(nearest, Self.segmentDistance(p.x, p.y, ax, ay, bx, by))
                    i += 2
                }
            }
            return inside ? -nearest : nearest
        }
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
