/// A WGS84 position in fixed point: degrees × 10⁷ (about 1 cm).
///
/// Fixed point makes a fix's position exact and compact (8 bytes) in the replay history, and makes
/// a live fold and a refold from history see bit-identical inputs, which determinism needs.
/// The codec rounds decimal text to the nearest 10⁻⁷ degree and prints it back without loss.
public struct Coordinate: Hashable, Sendable {
    public var latitudeE7: Int32
    public var longitudeE7: Int32

    @inlinable
    public init(latitudeE7: Int32, longitudeE7: Int32) {
        self.latitudeE7 = latitudeE7
        self.longitudeE7 = longitudeE7
    }

    /// Rounds degrees to fixed point. Callers validate ranges first.
    @inlinable
    public init(latitude: Double, longitude: Double) {
        self.latitudeE7 = Int32((latitude * 1e7).rounded())
        self.longitudeE7 = Int32((longitude * 1e7).rounded())
    }

    @inlinable public var latitude: Double { Double(latitudeE7) / 1e7 }
    @inlinable public var longitude: Double { Double(longitudeE7) / 1e7 }

    public static let maxLatitudeE7: Int32 = 900_000_000
    public static let maxLongitudeE7: Int32 = 1_800_000_000

    @inlinable
    public var isValid: Bool {
        latitudeE7 >= -Self.maxLatitudeE7 && latitudeE7 <= Self.maxLatitudeE7
            && longitudeE7 >= -Self.maxLongitudeE7 && longitudeE7 <= Self.maxLongitudeE7
    }
}
