#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the learned ETA regresses ln(remaining seconds) on, at one fix of a trip. Logs of
/// distances, elapsed time and speeds: remaining time is closer to a product of them than a sum.
public struct EtaFeatures: Sendable, Equatable {
    public static let count = 8
    /// Meters added to a distance to the destination's edge before its log (the last meters are
    /// slow, and a log of 0 is not a number).
    static let edgePadding = 30.0

    /// 1, ln(edge + 30), ln(elapsed + 60), ln(initial edge + 30), ln(recent speed + 1),
    /// ln(max(closing rate, 0) + 1), the map's ln(speed) here and now, and the map's ln(speed) at
    /// the destination now (how slow its surroundings are: the approach). A SIMD vector, not an
    /// array: the ETA builds one per fix, and an array would be an allocation each.
    public var vector: SIMD8<Double>

    /// The features as an array (allocates: for learning and tests, not per fix).
    public var values: [Double] { (0..<Self.count).map { vector[$0] } }

    /// From `count` values (more or fewer: the vector takes what fits, NaN where missing).
    public init(values: [Double]) {
        vector = SIMD8(repeating: 0)
        for index in 0..<Self.count { vector[index] = index < values.count ? values[index] : .nan }
    }

    /// The trip's part (`TripFeatures`) with the map's paces here and at the destination.
    public init(_ trip: TripFeatures, mapLogSpeed: Double, destinationLogSpeed: Double) {
        vector = SIMD8(1, trip.logEdge, trip.logElapsed, trip.logInitialEdge, trip.logSpeed, trip.logClosing,
                       mapLogSpeed, destinationLogSpeed)
    }

    /// ln(edge + 30): the regime and the distance band.
    var logEdge: Double { vector[1] }
    /// ln((edge + 30) / (initial edge + 30)): the share of the way still ahead, for the progress band.
    var logShareAhead: Double { vector[1] - vector[3] }
}
