#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the learned ETA regresses ln(remaining seconds) on, at one fix of a trip. Logs of
/// distances, elapsed time and speeds: remaining time is closer to a product of them than a sum.
public struct EtaFeatures: Sendable, Equatable {
    public static let count = 7
    /// Meters added to a distance to the destination's edge before its log (the last meters are
    /// slow, and a log of 0 is not a number).
    static let edgePadding = 30.0

    /// 1, ln(edge + 30), ln(elapsed + 60), ln(initial edge + 30), ln(recent speed + 1),
    /// ln(max(closing rate, 0) + 1), the map's ln(speed) here and now; lane 7 is unused (0). A SIMD
    /// vector, not an array: the ETA builds one per fix, and an array would be an allocation each.
    public var vector: SIMD8<Double>

    /// The features as an array of `count` (allocates: for learning and tests, not per fix).
    public var values: [Double] { (0..<Self.count).map { vector[$0] } }

    /// From `count` values (more or fewer: the vector takes what fits, NaN where missing).
    public init(values: [Double]) {
        vector = SIMD8(repeating: 0)
        for index in 0..<Self.count { vector[index] = index < values.count ? values[index] : .nan }
    }

    public init(edgeDistance: Double, elapsedSeconds: Double, pace: TripPace, mapLogSpeed: Double) {
        let initial = pace.initialEdgeDistance.isNaN ? edgeDistance : Double(pace.initialEdgeDistance)
        vector = SIMD8(
            1,
            log(max(edgeDistance, 0) + Self.edgePadding),
            log(max(elapsedSeconds, 0) + 60),
            log(max(initial, 0) + Self.edgePadding),
            log(max(Double(pace.recentSpeed), 0) + 1),
            log(max(Double(pace.closingRate), 0) + 1),
            mapLogSpeed,
            0)
    }
}
