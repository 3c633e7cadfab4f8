/// Count, mean and sum of squared deviations of a stream of values, updated one value at a time
/// (Welford's method: stable where a sum of squares would cancel), and when the last one came.
///
/// 16 bytes: Float moments are plenty for log speeds, and keep a map cell at 24 bytes with its key.
public struct WelfordCount: Sendable, Equatable {
    public private(set) var count: UInt32 = 0
    public private(set) var mean: Float = 0
    /// Sum of squared deviations from the mean.
    public private(set) var squaredDeviations: Float = 0
    /// Event time of the newest value, whole hours since 1970 (bounds expiry without a clock).
    public private(set) var lastSeenHour: UInt32 = 0

    public init() {}

    /// A count as a model file stores it; nil when the moments cannot come from any stream.
    public init?(count: UInt32, mean: Float, squaredDeviations: Float, lastSeenHour: UInt32) {
        guard count > 0, mean.isFinite, squaredDeviations.isFinite, squaredDeviations >= 0 else { return nil }
        self.count = count
        self.mean = mean
        self.squaredDeviations = squaredDeviations
        self.lastSeenHour = lastSeenHour
    }

    /// Unbiased variance; 0 below two values.
    public var variance: Float { count > 1 ? squaredDeviations / Float(count - 1) : 0 }

    public mutating func add(_ value: Float, hour: UInt32) {
        guard count < UInt32.max else { return }  // saturated: the mean no longer moves anyway
        count += 1
        let delta = value - mean
        mean += delta / Float(count)
        squaredDeviations += delta * (value - mean)
        lastSeenHour = max(lastSeenHour, hour)
    }

    /// Both streams' counts in one (Chan et al.'s pairwise update): a partition's model merged
    /// into the fleet's. Merging in a fixed order gives the same result every time.
    public mutating func merge(_ other: WelfordCount) {
        guard other.count > 0 else { return }
        guard count > 0 else {
            self = other
            return
        }
        let total = UInt64(count) + UInt64(other.count)
        let n = Float(total)
        let delta = other.mean - mean
        mean += delta * Float(other.count) / n
        squaredDeviations += other.squaredDeviations + delta * delta * Float(count) * Float(other.count) / n
        count = UInt32(clamping: total)
        lastSeenHour = max(lastSeenHour, other.lastSeenHour)
    }
}
