#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Distances on the Earth for the scales a fleet works at (meters to a few hundred kilometers).
///
/// An equirectangular projection at the pair's mean latitude: one cosine per call, within 0.5%
/// of the great-circle distance below 500 km, which is far below GPS error and ETA uncertainty.
/// Longitudes are compared the short way round, so two points either side of the antimeridian are
/// close. Near the poles the approximation degrades (inside a 100 km circle centred at 89.5° it is
/// off by up to 57%); geofences are kept within ±89° (`GeofenceShape.maxAbsLatitudeE7`), where a
/// circle of up to 100 km stays within 1.5%.
public enum Geodesy {
    public static let earthRadius = 6_371_008.8
    public static let metersPerDegree = earthRadius * Double.pi / 180

    @inlinable
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        distance(a, b, cosineOfDegrees: { cos($0 * Double.pi / 180) })
    }

    /// `distance` with `cosine(ofDegrees:)` for libm's `cos` (cheaper, and the same bits everywhere),
    /// for the learned ETA's step on every fix of a trip (`TripPace`). Geofence edges keep `distance`.
    @inline(__always)
    static func portableDistance(_ a: Coordinate, _ b: Coordinate) -> Double {
        distance(a, b, cosineOfDegrees: cosine(ofDegrees:))
    }

    @inlinable @inline(__always)
    static func distance(_ a: Coordinate, _ b: Coordinate, cosineOfDegrees: (Double) -> Double) -> Double {
        let dLat = Double(b.latitudeE7 &- a.latitudeE7) * 1e-7
        var dLngE7 = Int64(b.longitudeE7) - Int64(a.longitudeE7)
        if dLngE7 > 1_800_000_000 { dLngE7 -= 3_600_000_000 } else if dLngE7 < -1_800_000_000 { dLngE7 += 3_600_000_000 }
        let meanLat = (Double(a.latitudeE7) + Double(b.latitudeE7)) * 0.5e-7
        let dLng = Double(dLngE7) * 1e-7 * cosineOfDegrees(meanLat)
        return (dLat * dLat + dLng * dLng).squareRoot() * metersPerDegree
    }

    /// cos of an angle in degrees (a latitude), by its Taylor series to the 14th power (error below
    /// 10⁻¹⁰ on ±90°): the same bits on every platform, where libm's `cos` may differ in the last one
    /// and move a pace cell's edge (`EtaPaceMap`), and a third of its cost.
    @inline(__always)
    static func cosine(ofDegrees degrees: Double) -> Double {
        let x = degrees * (Double.pi / 180)
        let x2 = x * x
        var sum = -1.0 / 87_178_291_200
        sum = sum * x2 + 1.0 / 479_001_600
        sum = sum * x2 - 1.0 / 3_628_800
        sum = sum * x2 + 1.0 / 40_320
        sum = sum * x2 - 1.0 / 720
        sum = sum * x2 + 1.0 / 24
        sum = sum * x2 - 0.5
        return sum * x2 + 1
    }
}

/// A flat local frame in meters around a reference point; used for polygon tests.
///
/// Longitudes are taken the short way round from the origin's: a point 179.9° east of the origin is
/// 179.9° east, one 180.1° east is 179.9° west. A shape no wider than 360° whose origin is its
/// bounding box's center therefore projects as it is drawn, and a point across the antimeridian
/// from it lands on the right side (a polygon touching 180° sees a fix at -179.99° 1 km away,
/// not 360° away).
public struct LocalFrame: Sendable, Equatable {
    public let origin: Coordinate
    public let metersPerLngE7: Double
    public static let metersPerLatE7 = Geodesy.metersPerDegree * 1e-7

    public init(origin: Coordinate) {
        self.origin = origin
        self.metersPerLngE7 = Geodesy.metersPerDegree * 1e-7 * cos(origin.latitude * Double.pi / 180)
    }

    /// A frame whose scale was computed before (by `init(origin:)` for this origin).
    init(origin: Coordinate, metersPerLngE7: Double) {
        self.origin = origin
        self.metersPerLngE7 = metersPerLngE7
    }

    @inlinable
    public func project(_ c: Coordinate) -> (x: Double, y: Double) {
        var dLngE7 = Int64(c.longitudeE7) - Int64(origin.longitudeE7)
        if dLngE7 > 1_800_000_000 { dLngE7 -= 3_600_000_000 } else if dLngE7 < -1_800_000_000 { dLngE7 += 3_600_000_000 }
        return (Double(dLngE7) * metersPerLngE7, Double(Int64(c.latitudeE7) - Int64(origin.latitudeE7)) * Self.metersPerLatE7)
    }
}
