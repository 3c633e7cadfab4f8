/// The features a trip's own fixes give (`EtaFeatures` adds the map's): logs of the distance to the
/// destination's edge, of the time since the start, of the first distance, of the recent speed and
/// of the closing rate.
public struct TripFeatures: Sendable, Equatable {
    public var logEdge: Double
    public var logElapsed: Double
    public var logInitialEdge: Double
    public var logSpeed: Double
    public var logClosing: Double

    public init(logEdge: Double, logElapsed: Double, logInitialEdge: Double, logSpeed: Double, logClosing: Double) {
        self.logEdge = logEdge
        self.logElapsed = logElapsed
        self.logInitialEdge = logInitialEdge
        self.logSpeed = logSpeed
        self.logClosing = logClosing
    }

    @inline(__always)
    public init(edgeDistance: Double, elapsedSeconds: Double, pace: TripPace) {
        let initial = pace.initialEdgeDistance.isNaN ? edgeDistance : Double(pace.initialEdgeDistance)
        logEdge = naturalLog(max(edgeDistance, 0) + EtaFeatures.edgePadding)
        logElapsed = naturalLog(max(elapsedSeconds, 0) + 60)
        logInitialEdge = naturalLog(max(initial, 0) + EtaFeatures.edgePadding)
        logSpeed = naturalLog(max(Double(pace.recentSpeed), 0) + 1)
        logClosing = naturalLog(max(Double(pace.closingRate), 0) + 1)
    }

    /// By bit pattern, as the state store compares what it restores.
    public static func == (lhs: TripFeatures, rhs: TripFeatures) -> Bool {
        lhs.logEdge.bitPattern == rhs.logEdge.bitPattern && lhs.logElapsed.bitPattern == rhs.logElapsed.bitPattern
            && lhs.logInitialEdge.bitPattern == rhs.logInitialEdge.bitPattern
            && lhs.logSpeed.bitPattern == rhs.logSpeed.bitPattern && lhs.logClosing.bitPattern == rhs.logClosing.bitPattern
    }

    var isFinite: Bool {
        logEdge.isFinite && logElapsed.isFinite && logInitialEdge.isFinite && logSpeed.isFinite && logClosing.isFinite
    }
}
