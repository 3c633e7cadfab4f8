#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The travel-time model learned from the fleet's fixes and arrived trips, without a routing call.
///
/// ln(remaining seconds) = w · `EtaFeatures`, a ridge regression toward today's √distance model
/// (`EtaModel`), fitted separately in three regimes of distance to the destination's edge: the
/// approach (the last 300 m: parking, the drop-off), the neighbourhood (to 1,500 m) and the way.
/// The map (`EtaPaceMap`) learns from every step. Cross-fitted residuals ln(actual / predicted),
/// counted per band of remaining distance × share of the way done, give each band's median
/// correction and its 10–90 % range, so the range holds at the start of a ride as at its end.
///
/// Learned by `replay --eta-model-out` (`EtaLearner`), read from a file (`EtaModelFile` in Codec)
/// by `--eta-model`, and read-only in the fold. Measured by `bench/eta_learned.py` (its Python
/// twin) and `bench/eta_replay.py` on held-out Porto rides.
public struct FleetEtaModel: Sendable, Equatable {
    /// Prior coefficients: ln(0.9·e^1.85) + ½·ln d, today's model.
    public static let priorCoefficients: [Double] = [log(0.9) + 1.85, 0.5, 0, 0, 0, 0, 0, 0]
    /// Weight of the prior, in checkpoints.
    public static let priorWeight = 20.0
    /// Upper bounds (meters to the destination's edge) of the regimes; the last is open.
    public static let regimeLimits: [Double] = [300, 1500]
    /// Upper bounds (meters to the destination's edge) of the residuals' distance bands; the last is open.
    public static let bandLimits: [Double] = [200, 500, 1000, 2000, 4000]
    /// Upper bounds of the residuals' progress bands: the share of the way to the destination's edge
    /// done, 1 − (edge + 30) / (initial edge + 30); the last is open.
    public static let progressLimits: [Double] = [0.375, 0.625]
    /// Residual histograms: one per distance band × progress band, distance major.
    public static var bandCount: Int { (bandLimits.count + 1) * (progressLimits.count + 1) }
    /// The limits as the features hold them: ln(meters + padding), and ln(share of the way ahead)
    /// in falling order.
    static let regimeLogLimits = regimeLimits.map { log($0 + EtaFeatures.edgePadding) }
    static let bandLogLimits = bandLimits.map { log($0 + EtaFeatures.edgePadding) }
    static let progressLogLimits = progressLimits.map { log(1 - $0) }
    /// A histogram with fewer residuals than this borrows its distance band's, then all of them.
    static let minimumResiduals: UInt32 = 30
    /// A map cell not seen for this long (event time) is dropped: 4 weeks.
    public static let cellExpiryHours: UInt32 = 28 * 24

    public private(set) var paceMap = EtaPaceMap()
    /// X'X and X'y of each regime.
    public private(set) var regimes: [RidgeStatistics]
    /// Checkpoints learned.
    public private(set) var samples: UInt64 = 0
    /// Cross-fitted residuals ln(actual / predicted), one histogram per band (`bandCount`).
    public private(set) var residuals: [ResidualHistogram]

    // Derived when the statistics change, read on every fix.
    private let limits = Limits()
    private var paceTable: EtaPaceTable
    private var coefficients: (SIMD8<Double>, SIMD8<Double>, SIMD8<Double>)
    /// Per band: the median residual, exp(10 % − median) and exp(90 % − median).
    private var bandRanges: [(median: Double, low: Double, high: Double)]

    public init() {
        regimes = Array(repeating: RidgeStatistics(), count: Self.regimeLimits.count + 1)
        residuals = Array(repeating: ResidualHistogram(), count: Self.bandCount)
        paceTable = EtaPaceTable(EtaPaceMap())
        let prior = Self.vector(Self.priorCoefficients)
        coefficients = (prior, prior, prior)
        bandRanges = []
        refit()
    }

    /// A model as a file stores it; nil when the parts do not fit together.
    public init?(paceMap: EtaPaceMap, regimes: [RidgeStatistics], samples: UInt64, residuals: [ResidualHistogram]) {
        guard regimes.count == Self.regimeLimits.count + 1, residuals.count == Self.bandCount else { return nil }
        self.init()
        self.paceMap = paceMap
        self.regimes = regimes
        self.samples = samples
        self.residuals = residuals
        refit()
    }

    public static func == (lhs: FleetEtaModel, rhs: FleetEtaModel) -> Bool {
        lhs.paceMap == rhs.paceMap && lhs.regimes == rhs.regimes && lhs.samples == rhs.samples
            && lhs.residuals == rhs.residuals
    }

    // MARK: - Estimates

    /// ln of the median ETA, seconds, and the factors from it to the 10 % and the 90 % ends of its range.
    @inline(__always)
    public func estimate(_ features: EtaFeatures) -> (logSeconds: Double, lowFactor: Double, highFactor: Double) {
        let range = bandRanges[limits.band(of: features)]
        return ((coefficients(for: features) * features.vector).sum() + range.median, range.low, range.high)
    }

    /// The map's ln(speed) at `position` at `time`.
    public func logSpeed(at position: Coordinate, time: UnixMillis) -> Double {
        paceTable.logSpeed(at: position, bucket: EtaPaceMap.bucket(of: time))
    }

    /// The map's ln(speed) at `position` and at `destination` (nil: here again) at `time`.
    @inline(__always)
    public func logSpeeds(at position: Coordinate, destination: Coordinate?, time: UnixMillis)
        -> (here: Double, destination: Double)
    {
        let bucket = EtaPaceMap.bucket(of: time)
        let here = paceTable.logSpeed(at: position, bucket: bucket)
        return (here, destination.map { paceTable.logSpeed(at: $0, bucket: bucket) } ?? here)
    }

    /// The coefficients of a regime (0: the approach), as an array (for tests and tools).
    public func coefficients(regime: Int) -> [Double] {
        let vector = [coefficients.0, coefficients.1, coefficients.2][regime]
        return (0..<EtaFeatures.count).map { vector[$0] }
    }

    @inline(__always)
    private func coefficients(for features: EtaFeatures) -> SIMD8<Double> {
        switch limits.regime(of: features) {
        case 0: coefficients.0
        case 1: coefficients.1
        default: coefficients.2
        }
    }

    /// The residual band of `features`: distance band × (number of progress bands) + progress band.
    static func band(of features: EtaFeatures) -> Int { Limits().band(of: features) }

    /// The regime and band limits as the features hold them, kept in the model: read on every fix,
    /// where a global constant computed by `log` would be a lazy initialization's check each time.
    struct Limits: Sendable {
        let approach = FleetEtaModel.regimeLogLimits[0], neighbourhood = FleetEtaModel.regimeLogLimits[1]
        // Five distance limits and two progress limits, as scalars: no array, no bounds check per fix.
        let d0 = bandLogLimits[0], d1 = bandLogLimits[1], d2 = bandLogLimits[2], d3 = bandLogLimits[3]
        let d4 = bandLogLimits[4], p0 = progressLogLimits[0], p1 = progressLogLimits[1]

        /// 0 the approach, 1 the neighbourhood, 2 the way (`regimeLimits`).
        @inline(__always)
        func regime(of features: EtaFeatures) -> Int {
            let logEdge = features.logEdge
            return logEdge < approach ? 0 : logEdge < neighbourhood ? 1 : 2
        }

        @inline(__always)
        func band(of features: EtaFeatures) -> Int {
            let logEdge = features.logEdge, logAhead = features.logShareAhead
            let distance = (logEdge >= d0 ? 1 : 0) + (logEdge >= d1 ? 1 : 0) + (logEdge >= d2 ? 1 : 0)
                + (logEdge >= d3 ? 1 : 0) + (logEdge >= d4 ? 1 : 0)
            return distance * 3 + (logAhead <= p0 ? 1 : 0) + (logAhead <= p1 ? 1 : 0)
        }
    }

    // MARK: - Learning

    /// A learning checkpoint: a trip's features at one fix, the seconds it actually had left, and
    /// its learning fold (`EtaLearner.folds`).
    public struct Checkpoint: Sendable {
        public var features: EtaFeatures
        public var remainingSeconds: Double
        public var fold: Int

        public init(features: EtaFeatures, remainingSeconds: Double, fold: Int) {
            self.features = features
            self.remainingSeconds = remainingSeconds
            self.fold = fold
        }
    }

    /// Learns a batch of checkpoints, in the order given (the sums' rounding follows it). Each
    /// checkpoint's residual is taken against the model fitted without its fold (cross-fitting):
    /// out of sample, as the range will be used, and the same whatever order the trips arrived in.
    public mutating func learn(_ batch: [Checkpoint]) {
        let folds = EtaLearner.folds
        let valid = batch.filter {
            $0.remainingSeconds > 0 && $0.remainingSeconds.isFinite && (0..<folds).contains($0.fold)
                && $0.features.values.allSatisfy(\.isFinite)
        }
        guard !valid.isEmpty else { return }
        var byFold = Array(repeating: regimes.map { _ in RidgeStatistics() }, count: folds)
        for checkpoint in valid {
            byFold[checkpoint.fold][limits.regime(of: checkpoint.features)].add(
                checkpoint.features.vector, log(checkpoint.remainingSeconds))
        }
        let withoutFold = (0..<folds).map { fold in
            regimes.indices.map { regime in
                var statistics = regimes[regime]
                for other in 0..<folds where other != fold { statistics.merge(byFold[other][regime]) }
                return Self.vector(Self.solve(statistics))
            }
        }
        for checkpoint in valid {
            let predicted = (withoutFold[checkpoint.fold][limits.regime(of: checkpoint.features)]
                * checkpoint.features.vector).sum()
            residuals[limits.band(of: checkpoint.features)].add(log(checkpoint.remainingSeconds) - predicted)
        }
        for regime in regimes.indices {
            for fold in 0..<folds { regimes[regime].merge(byFold[fold][regime]) }
        }
        samples += UInt64(valid.count)
        refit()
    }

    /// The map: `paceMap` replaced (a learner's, merged), then refit.
    mutating func replaceMap(_ map: EtaPaceMap) {
        paceMap = map
        refit()
    }

    private static func solve(_ statistics: RidgeStatistics) -> [Double] {
        statistics.solve(toward: priorCoefficients, weight: priorWeight) ?? priorCoefficients
    }

    private static func vector(_ values: [Double]) -> SIMD8<Double> {
        var vector = SIMD8<Double>(repeating: 0)
        for index in 0..<EtaFeatures.count { vector[index] = values[index] }
        return vector
    }

    /// Coefficients, band ranges and the pace table from the statistics. Exactly the prior before
    /// any sample (solving λI w = λ w₀ could round it).
    private mutating func refit() {
        let fitted = regimes.map { samples == 0 ? Self.priorCoefficients : Self.solve($0) }.map(Self.vector)
        coefficients = (fitted[0], fitted[1], fitted[2])
        let progressBands = Self.progressLimits.count + 1
        var all = ResidualHistogram()
        for histogram in residuals { all.merge(histogram) }
        bandRanges = residuals.indices.map { band in
            var histogram = residuals[band]
            if histogram.total < Self.minimumResiduals {
                let first = band / progressBands * progressBands
                histogram = ResidualHistogram()
                for index in first..<(first + progressBands) { histogram.merge(residuals[index]) }
            }
            if histogram.total < Self.minimumResiduals { histogram = all }
            let median = histogram.quantile(0.5)
            return (median, exp(histogram.quantile(0.1) - median), exp(histogram.quantile(0.9) - median))
        }
        paceTable = EtaPaceTable(paceMap)
    }
}
