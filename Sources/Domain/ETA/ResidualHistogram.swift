/// Out-of-sample residuals ln(actual / predicted) of the ETA, counted in fixed bins, so any
/// quantile comes from a bounded state (120 counts, 0.05 wide: a range of ±15 % still spans several)
/// and two models' histograms simply add.
public struct ResidualHistogram: Sendable, Equatable {
    public static let lowest = -3.0
    public static let highest = 3.0
    public static let binCount = 120
    /// Below this many residuals a quantile is the prior's: a wide range centred slightly low.
    static let minimumCount: UInt32 = 30

    public private(set) var bins: [UInt32]

    public init() { bins = Array(repeating: 0, count: Self.binCount) }

    /// Bins as a model file stores them; nil unless there are `binCount`.
    public init?(bins: [UInt32]) {
        guard bins.count == Self.binCount else { return nil }
        self.bins = bins
    }

    public var total: UInt32 { bins.reduce(0, &+) }

    static var width: Double { (highest - lowest) / Double(binCount) }

    /// Counts one residual; values outside the range count in the end bins.
    public mutating func add(_ residual: Double) {
        guard residual.isFinite else { return }
        let index = Int(((residual - Self.lowest) / Self.width).rounded(.down))
        let bin = min(max(index, 0), Self.binCount - 1)
        if bins[bin] < UInt32.max { bins[bin] += 1 }
    }

    /// Another histogram's counts added to these.
    public mutating func merge(_ other: ResidualHistogram) {
        for index in bins.indices { bins[index] = bins[index] &+ other.bins[index] }
    }

    /// The `q` quantile (0…1), linear within its bin.
    public func quantile(_ q: Double) -> Double {
        let n = total
        guard n >= Self.minimumCount else { return Self.prior(q) }
        let target = q * Double(n)
        var below = 0.0
        for (index, count) in bins.enumerated() {
            let c = Double(count)
            if c > 0, below + c >= target {
                return Self.lowest + (Double(index) + (target - below) / c) * Self.width
            }
            below += c
        }
        return Self.highest
    }

    /// ln 2.2 either side of a slight shrink: the spread measured on real rides (bench/eta_learned.py).
    static func prior(_ q: Double) -> Double {
        let q = min(max(q, 0.1), 0.9)
        return q <= 0.5 ? -0.1 + (q - 0.5) * 1.75 : -0.1 + (q - 0.5) * 2.25
    }
}
