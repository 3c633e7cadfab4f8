/// How a chaos broker draws its faults: the seed that decides them and how often they come.
public struct ChaosSettings: Hashable, Sendable {
    /// The seed: the same seed (and target) gives the same faults at the same times.
    public var seed: UInt64
    /// The mean time between two faults, in milliseconds; each gap is drawn from half to one and a half of it.
    /// Default: 2 s.
    public var meanInterval: Int64

    /// The shortest and longest mean interval: shorter would stack faults faster than clients recover from one
    /// (a broker is down for up to 3 s), longer would hardly be chaos.
    public static let intervals: ClosedRange<Int64> = 50...3_600_000

    public init(seed: UInt64, meanInterval: Int64 = 2_000) throws(ChaosSettingsError) {
        guard Self.intervals.contains(meanInterval) else { throw .intervalOutOfRange(milliseconds: meanInterval) }
        self.seed = seed
        self.meanInterval = meanInterval
    }

    /// Settings from a seed as text (`--chaos`): a decimal whole number from 0 to 2⁶⁴-1.
    public init(seed text: String, meanInterval: Int64 = 2_000) throws(ChaosSettingsError) {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let seed = UInt64(text)
        else { throw .seedNotAWholeNumber(text) }
        try self.init(seed: seed, meanInterval: meanInterval)
    }
}
