/// The steps a map entry has seen: how many, the sum of their ln(speed) in fixed point, and when the
/// last one came.
///
/// Integers, so that counts add exactly: a fleet's map is the same bits whichever partitions its
/// steps were folded in and in whatever order those partitions' maps are added. (A floating-point
/// mean would round differently with every grouping, and the model file would depend on
/// `--partitions`.) 16 bytes; with its 8-byte key an entry is 24.
public struct PaceCount: Sendable, Equatable {
    /// Units of ln(m/s) per integer step of `logSpeedSum`: 2⁻²⁰, far below any speed's meaning.
    public static let scale = 1_048_576.0

    public private(set) var count: UInt32 = 0
    /// Event time of the newest step, whole hours since 1970 (bounds expiry without a clock).
    public private(set) var lastSeenHour: UInt32 = 0
    /// Σ round(ln(speed) × `scale`).
    public private(set) var logSpeedSum: Int64 = 0

    public init() {}

    /// A count as a model file stores it; nil when no stream of steps gives it.
    public init?(count: UInt32, logSpeedSum: Int64, lastSeenHour: UInt32) {
        guard count > 0 else { return nil }
        self.count = count
        self.logSpeedSum = logSpeedSum
        self.lastSeenHour = lastSeenHour
    }

    /// ln(speed) of one step, as it is counted.
    public static func fixedPoint(_ logSpeed: Double) -> Int64 { Int64((logSpeed * scale).rounded()) }

    /// Mean ln(speed) of the steps; 0 without any.
    public var mean: Double { count == 0 ? 0 : Double(logSpeedSum) / Self.scale / Double(count) }

    public mutating func add(_ fixedPointLogSpeed: Int64, hour: UInt32) {
        guard count < UInt32.max else { return }  // saturated: the mean no longer moves anyway
        count += 1
        logSpeedSum &+= fixedPointLogSpeed
        lastSeenHour = max(lastSeenHour, hour)
    }

    /// Both counts in one.
    public mutating func merge(_ other: PaceCount) {
        count = UInt32(clamping: UInt64(count) + UInt64(other.count))
        logSpeedSum &+= other.logSpeedSum
        lastSeenHour = max(lastSeenHour, other.lastSeenHour)
    }

    /// These steps without `other`'s, which are among them (a learning fold's own steps).
    func removing(_ other: PaceCount) -> PaceCount {
        var rest = self
        rest.count -= min(other.count, count)
        rest.logSpeedSum &-= other.logSpeedSum
        return rest
    }
}
