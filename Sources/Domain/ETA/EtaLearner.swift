/// A partition's learning of the fleet model, for `replay --eta-model-out`: fed by the fold in event
/// time (every step of a trip with a destination, every arrival), fitted once the replay is done
/// (`merged`), over all partitions' learning together.
///
/// What a partition keeps adds up exactly across partitions (step counts in integers) or is put in
/// one order before use (the arrived trips, sorted by a hash of their first sample), so the file
/// is the same bytes whatever `--partitions` and `--threads` were. Learning never shapes this run's
/// ETAs (they read `EtaSettings.fleetModel`, fixed for the run). A refold after a late input learns
/// that stretch again.
///
/// Each trip belongs to one of `folds` learning folds, named by its first sample. Its features read
/// the map without its fold's steps and its residual is taken against the regression fitted
/// without its fold: out of sample, as the model will be used on trips it never saw.
///
/// - Important: a class so the fold's steps can write to it through their (immutable) context. It is
///   `@unchecked Sendable`, safe by confinement: `PartitionFold.init` is its only maker and keeps it in
///   that fold's context, so only that partition's fold steps write it, on the thread folding the
///   partition, one at a time; a driver reads it (`PartitionFold.etaLearner`) once that fold is done,
///   after joining the threads that folded (`ReplayJob`, `tripstream-bench --eta`).
public final class EtaLearner: @unchecked Sendable {
    /// Learning folds (cross-fitting).
    public static let folds = 5
    /// Arrived trips kept for the fit, at most: those of the smallest hashes, the same set whatever
    /// the partitioning (about 1 KB each while learning).
    public static let tripCapacity = 65_536

    /// An arrived trip as learning keeps it until the fit.
    struct LearnedTrip {
        var samples: [EtaSampleList.Sample]
        var arrival: UnixMillis
        var hash: UInt64
        /// Its place among this learner's arrivals: a refold that arrives the same trip again
        /// (the same first sample) replaces the earlier learning.
        var sequence: Int
    }

    /// The steps learned, by the learning fold of their trip.
    public private(set) var foldMaps = Array(repeating: EtaPaceMap(), count: EtaLearner.folds)
    private var trips: [LearnedTrip] = []
    private var learned = 0

    public init() {}

    /// Arrived trips this partition keeps for the fit.
    public var tripCount: Int { min(trips.count, Self.tripCapacity) }

    public func observeStep(speed: Double, at position: Coordinate, time: UnixMillis, fold: Int) {
        guard speed.isFinite, speed >= 0 else { return }
        foldMaps[fold].observe(speed: speed, at: position, time: time)
    }

    /// A trip arrived at `arrival`: its samples, paired with the time each actually had left at the fit.
    public func learn(_ samples: EtaSampleList, arrival: UnixMillis) {
        guard let first = samples.samples.first else { return }
        trips.append(LearnedTrip(samples: samples.samples, arrival: arrival, hash: Self.hash(of: first),
                                 sequence: learned))
        learned += 1
        if trips.count >= 2 * Self.tripCapacity { Self.keepSmallest(&trips) }
    }

    /// The learning fold of a trip whose first sample is `sample`.
    static func fold(of sample: EtaSampleList.Sample) -> Int { fold(ofHash: hash(of: sample)) }

    /// The learning fold of a trip whose first sample hashes to `hash`.
    private static func fold(ofHash hash: UInt64) -> Int { Int((hash >> 32) % UInt64(folds)) }

    /// A trip's hash, from its first sample (SplitMix64's finalizer over its time and places).
    static func hash(of sample: EtaSampleList.Sample) -> UInt64 {
        func mix(_ x: UInt64) -> UInt64 {
            var z = x &+ 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let position = UInt64(UInt32(bitPattern: sample.position.latitudeE7)) << 32
            | UInt64(UInt32(bitPattern: sample.position.longitudeE7))
        let destination = UInt64(UInt32(bitPattern: sample.destination.latitudeE7)) << 32
            | UInt64(UInt32(bitPattern: sample.destination.longitudeE7))
        return mix(mix(mix(UInt64(bitPattern: sample.time)) ^ position) ^ destination)
    }

    /// Sorts trips into the order the fit reads them, keeps the last learning of each (a refold's)
    /// and the first `tripCapacity`.
    private static func keepSmallest(_ trips: inout [LearnedTrip]) {
        trips.sort { $0.hash != $1.hash ? $0.hash < $1.hash : $0.sequence > $1.sequence }
        var kept: [LearnedTrip] = []
        kept.reserveCapacity(min(trips.count, tripCapacity))
        for trip in trips where kept.count < tripCapacity && kept.last?.hash != trip.hash { kept.append(trip) }
        trips = kept
    }

    /// The file's model: `base` (the loaded one, or none) plus what the learners learned, fitted
    /// together; map cells not seen for 4 weeks before `time` dropped.
    public static func merged(base: FleetEtaModel?, _ learners: [EtaLearner], expiringBefore time: UnixMillis)
        -> FleetEtaModel
    {
        var model = base ?? FleetEtaModel()
        let (map, batch) = checkpoints(onto: model.paceMap, learners, expiringBefore: time)
        model.replaceMap(map)
        model.learn(batch)
        return model
    }

    /// `base` with the learners' steps added (and expired), and the learners' trips as checkpoints
    /// in the fit's order, their map paces read without their own fold's steps.
    static func checkpoints(onto base: EtaPaceMap, _ learners: [EtaLearner], expiringBefore time: UnixMillis)
        -> (map: EtaPaceMap, batch: [FleetEtaModel.Checkpoint])
    {
        let foldMaps = (0..<folds).map { fold in
            learners.reduce(into: EtaPaceMap()) { map, learner in map.merge(learner.foldMaps[fold]) }
        }
        var map = base
        for foldMap in foldMaps { map.merge(foldMap) }
        map.expire(before: time, expiryHours: FleetEtaModel.cellExpiryHours)
        var trips = learners.flatMap(\.trips)
        keepSmallest(&trips)
        var batch: [FleetEtaModel.Checkpoint] = []
        for trip in trips {
            let fold = Self.fold(ofHash: trip.hash)
            for sample in trip.samples where trip.arrival > sample.time {
                let here = map.logSpeed(at: sample.position, time: sample.time, excluding: foldMaps[fold])
                let there = map.logSpeed(at: sample.destination, time: sample.time, excluding: foldMaps[fold])
                batch.append(FleetEtaModel.Checkpoint(
                    features: EtaFeatures(sample.trip, mapLogSpeed: here, destinationLogSpeed: there),
                    remainingSeconds: Double(trip.arrival - sample.time) / 1000, fold: fold))
            }
        }
        return (map, batch)
    }
}
