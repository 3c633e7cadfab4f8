/// A trip's learning samples for the fleet model: the features at up to 16 points along the way, to
/// be paired with the actual arrival. Every 30 s at first; when full, every other one is kept and
/// the interval doubles, so a long trip keeps points spread over all of it in bounded memory.
/// Empty (a nil reference) unless the partition learns (`replay --eta-model-out`).
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

    /// Boxed, so a trip that does not learn pays one nil reference (8 bytes) for the list; copied on
    /// write, as the trip is a value kept in the user's history.
    private final class Storage: @unchecked Sendable {
        // @unchecked: mutated only through `mutableStorage`, which copies a shared box first (and so
        // never by two accesses at once: no run-time exclusivity checks).
        @exclusivity(unchecked) var samples: [Sample]
        @exclusivity(unchecked) var nextDue: UnixMillis
        @exclusivity(unchecked) var interval: UnixMillis

        init(samples: [Sample], nextDue: UnixMillis, interval: UnixMillis) {
            self.samples = samples
            self.nextDue = nextDue
            self.interval = interval
        }
    }

    private var storage: Storage?

    public init() {}

    /// A list as the state store keeps it; nil when it breaks the bounds.
    public init?(samples: [Sample], nextDue: UnixMillis, interval: UnixMillis) {
        guard samples.count < Self.capacity, interval >= Self.firstInterval,
            samples.allSatisfy({ $0.features.values.allSatisfy(\.isFinite) })
        else { return nil }
        if !samples.isEmpty || nextDue != 0 || interval != Self.firstInterval {
            storage = Storage(samples: samples, nextDue: nextDue, interval: interval)
        }
    }

    public var samples: [Sample] { storage?.samples ?? [] }
    /// Elapsed trip time at which the next sample is due, and the interval after it.
    public var nextDue: UnixMillis { storage?.nextDue ?? 0 }
    public var interval: UnixMillis { storage?.interval ?? Self.firstInterval }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage?.samples.count ?? 0 }
    public subscript(index: Int) -> Sample { storage!.samples[index] }

    public func isDue(elapsed: UnixMillis) -> Bool { elapsed >= nextDue }

    private mutating func mutableStorage() -> Storage {
        if let storage, isKnownUniquelyReferenced(&self.storage) { return storage }
        let copy = Storage(samples: samples, nextDue: nextDue, interval: interval)
        storage = copy
        return copy
    }

    /// Takes a sample `elapsed` into the trip (call when `isDue`).
    public mutating func append(_ sample: Sample, elapsed: UnixMillis) {
        let box = mutableStorage()
        box.samples.append(sample)
        box.nextDue = elapsed + box.interval
        if box.samples.count == Self.capacity {
            box.samples = stride(from: 0, to: box.samples.count, by: 2).map { box.samples[$0] }
            box.interval *= 2
            box.nextDue = box.samples[box.samples.count - 1].time - (sample.time - elapsed) + box.interval
        }
    }

    public static func == (lhs: EtaSampleList, rhs: EtaSampleList) -> Bool {
        lhs.samples == rhs.samples && lhs.nextDue == rhs.nextDue && lhs.interval == rhs.interval
    }
}
