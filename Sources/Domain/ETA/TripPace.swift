#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A trip's own pace, what the learned ETA blends with the map's: its recent speed and the rate
/// at which it closes in on the destination, as exponential moving averages over about a minute,
/// and the distance to the destination's edge at its first fix. 24 bytes.
public struct TripPace: Sendable, Equatable {
    /// Time constant of the moving averages, seconds.
    static let timeConstant = 60.0

    /// Meters per second; starts at a fleet-typical 5.
    public private(set) var recentSpeed: Float = 5
    /// Meters per second toward the destination's center (negative: moving away); starts at 2.
    public private(set) var closingRate: Float = 2
    /// Meters from the destination's edge at the first fix; NaN before it.
    public private(set) var initialEdgeDistance: Float = .nan
    private var lastDistance: Float = .nan
    private var lastTime: UnixMillis = .min

    public init() {}

    /// Takes a fix `stepMeters` from the last one, `centerDistance` meters from the destination's
    /// center and `edgeDistance` from its edge.
    /// - Returns: the step's speed, meters per second; nil for the first fix or one not later.
    @discardableResult
    public mutating func advance(stepMeters: Double, centerDistance: Double, edgeDistance: Double, at time: UnixMillis)
        -> Double?
    {
        defer {
            if time > lastTime {
                lastTime = time
                lastDistance = Float(centerDistance)
            }
        }
        guard lastTime != .min else {
            initialEdgeDistance = Float(max(edgeDistance, 0))
            return nil
        }
        guard time > lastTime else { return nil }
        let seconds = Double(time - lastTime) / 1000
        let speed = stepMeters / seconds
        let closing = (Double(lastDistance) - centerDistance) / seconds
        let weight = 1 - exp(-seconds / Self.timeConstant)
        recentSpeed += Float(weight * (speed - Double(recentSpeed)))
        closingRate += Float(weight * (closing - Double(closingRate)))
        return speed
    }
}
