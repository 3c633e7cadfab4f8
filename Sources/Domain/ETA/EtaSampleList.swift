/// A trip's learning samples for the fleet model: the features at up to 16 points along the way, to
/// be paired with the actual arrival. Every 30 s at first; when full, every other one is kept and
/// the interval doubles, so a long trip keeps points spread over all of it in bounded memory.
/// Empty (no allocation) unless the partition learns (`replay --eta-model-out`).
public struct EtaSampleList: Sendable, Equatable, RandomAccessCollection {
    public struct Sample: Sendable, Equatable {
        public var time: UnixMillis
        public var features: EtaFeatures

        public init(time: UnixMillis, features: EtaFeatures) {
            self.time = time
            self.features = features
        }
    }

    public static let capacity = 16
    public static let firstInterval: UnixMillis = 30_000

    public private(set) var samples: [Sample] = []
    /// Elapsed trip time at which the next sample is due, and the interval after it.
    public private(set) var nextDue: UnixMillis = 0
    public private(set) var interval: UnixMillis = EtaSampleList.firstInterval

    public init() {}

    /// A list as the state store keeps it; nil when it breaks the bounds.
    public init?(samples: [Sample], nextDue: UnixMillis, interval: UnixMillis) {
        guard samples.count < Self.capacity, interval >= Self.firstInterval,
            samples.allSatisfy({ $0.features.values.count == EtaFeatures.count })
        else { return nil }
        self.samples = samples
        self.nextDue = nextDue
        self.interval = interval
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { samples.count }
    public subscript(index: Int) -> Sample { samples[index] }

    public func isDue(elapsed: UnixMillis) -> Bool { elapsed >= nextDue }

    /// Takes a sample `elapsed` into the trip (call when `isDue`).
    public mutating func append(_ sample: Sample, elapsed: UnixMillis) {
        samples.append(sample)
        nextDue = elapsed + interval
        if samples.count == Self.capacity {
            samples = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
            interval *= 2
            nextDue = samples[samples.count - 1].time - (sample.time - elapsed) + interval
        }
    }
}
