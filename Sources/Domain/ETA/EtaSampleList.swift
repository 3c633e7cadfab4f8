/// A trip's learning samples for the fleet model: its own features at up to 16 points along the
/// way, where it was and where it was heading, to be paired with the actual arrival. Every 30 s at
/// first; when full, every other one is kept and the interval doubles, so a long trip keeps points
/// spread over all of it in bounded memory. Empty (a nil reference) unless the partition learns
/// (`replay --eta-model-out`).
///
/// The map's paces are not taken here but when the model is fitted (`EtaLearner.merged`), from the
/// whole fleet's map without the trip's own learning fold: a partition's map at the time would make
/// the model depend on how the fleet was split into partitions.
public struct EtaSampleList: Sendable, Equatable, RandomAccessCollection {
    public struct Sample: Sendable, Equatable {
        public var time: UnixMillis
        public var position: Coordinate
        public var destination: Coordinate
        public var trip: TripFeatures

        public init(time: UnixMillis, position: Coordinate, destination: Coordinate, trip: TripFeatures) {
            self.time = time
            self.position = position
            self.destination = destination
            self.trip = trip
        }

        /// Values the state store keeps per sample beside its time.
        public static let storedCount = 7

        /// The sample as `storedCount` numbers: the position's fixed-point bits, the five logs of
        /// `trip`, the destination's bits.
        public var storedValues: [Double] {
            [Self.bits(position), trip.logEdge, trip.logElapsed, trip.logInitialEdge, trip.logSpeed, trip.logClosing,
             Self.bits(destination)]
        }

        /// A sample from `storedValues`; nil unless they are `storedCount`, with valid positions and
        /// finite logs.
        public init?(time: UnixMillis, storedValues values: [Double]) {
            guard values.count == Self.storedCount else { return nil }
            let trip = TripFeatures(logEdge: values[1], logElapsed: values[2], logInitialEdge: values[3],
                                    logSpeed: values[4], logClosing: values[5])
            let position = Self.coordinate(values[0]), destination = Self.coordinate(values[6])
            guard trip.isFinite, position.isValid, destination.isValid else { return nil }
            self.init(time: time, position: position, destination: destination, trip: trip)
        }

        private static func bits(_ c: Coordinate) -> Double {
            Double(bitPattern: UInt64(UInt32(bitPattern: c.latitudeE7)) << 32 | UInt64(UInt32(bitPattern: c.longitudeE7)))
        }

        private static func coordinate(_ value: Double) -> Coordinate {
            let bits = value.bitPattern
            return Coordinate(latitudeE7: Int32(bitPattern: UInt32(truncatingIfNeeded: bits >> 32)),
                              longitudeE7: Int32(bitPattern: UInt32(truncatingIfNeeded: bits)))
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
        guard samples.count < Self.capacity, interval >= Self.firstInterval else { return nil }
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

    /// The trip's learning fold (`EtaLearner.folds`), named by its first sample, which thinning
    /// keeps: nil before it.
    public var learningFold: Int? { storage?.samples.first.map(EtaLearner.fold(of:)) }

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
