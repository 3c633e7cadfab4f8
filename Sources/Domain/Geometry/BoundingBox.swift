/// A latitude/longitude box in fixed point, inclusive.
///
/// A box whose `minLngE7` is greater than its `maxLngE7` crosses the antimeridian, as GeoJSON
/// bounding boxes do (RFC 7946 §5.2): it holds the longitudes from `minLngE7` east to 180° and
/// from -180° east to `maxLngE7`. A box whose `minLatE7` is greater than its `maxLatE7` is empty.
public struct BoundingBox: Sendable, Equatable {
    public var minLatE7: Int32
    public var minLngE7: Int32
    public var maxLatE7: Int32
    public var maxLngE7: Int32

    public init(minLatE7: Int32, minLngE7: Int32, maxLatE7: Int32, maxLngE7: Int32) {
        self.minLatE7 = minLatE7
        self.minLngE7 = minLngE7
        self.maxLatE7 = maxLatE7
        self.maxLngE7 = maxLngE7
    }

    /// A box that holds no point.
    public static let empty = BoundingBox(minLatE7: 0, minLngE7: 0, maxLatE7: -1, maxLngE7: -1)

    @inlinable public var isEmpty: Bool { minLatE7 > maxLatE7 }

    /// Whether the box wraps from 180° to -180° (its west edge is east of its east edge).
    @inlinable public var crossesAntimeridian: Bool { !isEmpty && minLngE7 > maxLngE7 }

    @inlinable
    public func contains(_ c: Coordinate) -> Bool {
        guard c.latitudeE7 >= minLatE7 && c.latitudeE7 <= maxLatE7 else { return false }
        return minLngE7 <= maxLngE7
            ? c.longitudeE7 >= minLngE7 && c.longitudeE7 <= maxLngE7
            : c.longitudeE7 >= minLngE7 || c.longitudeE7 <= maxLngE7
    }

    /// The box as boxes that do not cross the antimeridian: none if empty, two if it crosses (the
    /// part up to 180° first), else itself.
    public var parts: [BoundingBox] {
        if isEmpty { return [] }
        guard crossesAntimeridian else { return [self] }
        return [
            BoundingBox(minLatE7: minLatE7, minLngE7: minLngE7, maxLatE7: maxLatE7, maxLngE7: Coordinate.maxLongitudeE7),
            BoundingBox(minLatE7: minLatE7, minLngE7: -Coordinate.maxLongitudeE7, maxLatE7: maxLatE7, maxLngE7: maxLngE7),
        ]
    }
}
