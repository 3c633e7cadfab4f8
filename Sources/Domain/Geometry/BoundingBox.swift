/// A latitude/longitude box in fixed point, inclusive.
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

    @inlinable
    public func contains(_ c: Coordinate) -> Bool {
        c.latitudeE7 >= minLatE7 && c.latitudeE7 <= maxLatE7 && c.longitudeE7 >= minLngE7 && c.longitudeE7 <= maxLngE7
    }
}
