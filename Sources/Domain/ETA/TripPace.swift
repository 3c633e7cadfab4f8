#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A trip's own pace, what the learned ETA blends with the map's: its recent speed and the rate
/// at which it closes in on the destination, as exponential moving averages over about a minute,
/// and the distance to the destination's edge at its first fix. 32 bytes, in an active trip only.
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
    private var lastPosition = Coordinate(latitudeE7: 0, longitudeE7: 0)
    private var lastTime: UnixMillis = .min

    public init() {}

    /// A pace as the state store keeps it.
    public init(recentSpeed: Float, closingRate: Float, initialEdgeDistance: Float, lastDistance: Float,
                lastPosition: Coordinate, lastTime: UnixMillis)
    {
        self.recentSpeed = recentSpeed
        self.closingRate = closingRate
        self.initialEdgeDistance = initialEdgeDistance
        self.lastDistance = lastDistance
        self.lastPosition = lastPosition
        self.lastTime = lastTime
    }

    /// The fields the state store keeps beyond the public ones.
    public var stored: (lastDistance: Float, lastPosition: Coordinate, lastTime: UnixMillis) {
        (lastDistance, lastPosition, lastTime)
    }

    public static func == (lhs: TripPace, rhs: TripPace) -> Bool {
        lhs.recentSpeed.bitPattern == rhs.recentSpeed.bitPattern
            && lhs.closingRate.bitPattern == rhs.closingRate.bitPattern
            && lhs.initialEdgeDistance.bitPattern == rhs.initialEdgeDistance.bitPattern
            && lhs.lastDistance.bitPattern == rhs.lastDistance.bitPattern && lhs.lastPosition == rhs.lastPosition
            && lhs.lastTime == rhs.lastTime
    }

    /// Takes a fix at `position`, `centerDistance` meters from the destination's center and
    /// `edgeDistance` from its edge.
    /// - Returns: the step's speed, meters per second; nil for the first fix or one not later.
    @discardableResult
    public mutating func advance(to position: Coordinate, centerDistance: Double, edgeDistance: Double,
                                 at time: UnixMillis) -> Double?
    {
        let stepMeters = lastTime == .min ? 0 : Geodesy.portableDistance(lastPosition, position)
        defer {
            if time > lastTime {
                lastTime = time
                lastDistance = Float(centerDistance)
                lastPosition = position
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
