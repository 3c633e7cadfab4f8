#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The travel-time model learned from the fleet's fixes and arrived trips, without a routing call.
///
/// ln(remaining seconds) = w · `EtaFeatures`, a ridge regression toward today's √distance model
/// (`EtaModel`), learned from arrived trips' checkpoints as sufficient statistics (X'X, X'y): order
/// of addition aside, they are the same whatever the trips' arrival order. The map (`EtaPaceMap`)
/// learns from every step. The 10 / 50 / 90 % of the out-of-sample residuals, counted per band of
/// distance to the destination's edge, correct the median and give the range. One model per partition, folded in event
/// time; a fleet-wide one comes in as a file (`EtaModelFile` in Codec), never across partitions.
///
/// Measured by `bench/eta_learned.py` (the Python twin of this type) on held-out Porto rides.
public struct FleetEtaModel: Sendable, Equatable {
    /// Prior coefficients: ln(0.9·e^1.85) + ½·ln d, today's model.
    public static let priorCoefficients: [Double] = [log(0.9) + 1.85, 0.5, 0, 0, 0, 0, 0]
    /// Weight of the prior, in checkpoints.
    public static let priorWeight = 20.0
    /// Upper bounds (meters to the destination's edge) of the residual bands; the last is open.
    public static let bandLimits: [Double] = [200, 500, 1000, 2000, 4000]
    /// `bandLimits` as the feature `EtaFeatures.values[1]` holds a distance: ln(meters + padding).
    static let bandLogLimits: [Double] = bandLimits.map { log($0 + EtaFeatures.edgePadding) }
    /// Smallest ETA, seconds.
    static let minimumSeconds = 15.0
    /// A map cell not seen for this long (event time) is dropped: 4 weeks.
    public static let cellExpiryHours: UInt32 = 28 * 24

    public internal(set) var paceMap = EtaPaceMap()
    /// Upper triangle of X'X, row by row (28 values for 7 features).
    public private(set) var gram: [Double]
    /// X'y.
    public private(set) var moments: [Double]
    public private(set) var samples: UInt64 = 0
    public private(set) var coefficients: [Double] {
        didSet { for index in 0..<EtaFeatures.count { coefficientVector[index] = coefficients[index] } }
    }
    /// `coefficients` as the features' vector (lane 7: 0), for the product per fix.
    private var coefficientVector = SIMD8<Double>(repeating: 0)
    public private(set) var residuals: [ResidualHistogram]
    /// The 10, 50 and 90 % of each band's residuals, kept beside them: read on every fix, changed
    /// only by learning.
    private var bandQuantiles: [Double]

    public init() {
        let k = EtaFeatures.count
        gram = Array(repeating: 0, count: k * (k + 1) / 2)
        moments = Array(repeating: 0, count: k)
        coefficients = Self.priorCoefficients
        residuals = Array(repeating: ResidualHistogram(), count: Self.bandLimits.count + 1)
        for index in 0..<EtaFeatures.count { coefficientVector[index] = coefficients[index] }
        bandQuantiles = []
        bandQuantiles = Self.quantiles(of: residuals)
    }

    private static func quantiles(of residuals: [ResidualHistogram]) -> [Double] {
        residuals.flatMap { [$0.quantile(0.1), $0.quantile(0.5), $0.quantile(0.9)] }
    }

    /// A model as a file stores it; nil when the parts do not fit together (sizes, non-finite values).
    public init?(paceMap: EtaPaceMap, gram: [Double], moments: [Double], samples: UInt64,
                 residuals: [ResidualHistogram])
    {
        let k = EtaFeatures.count
        guard gram.count == k * (k + 1) / 2, moments.count == k, residuals.count == Self.bandLimits.count + 1,
            gram.allSatisfy(\.isFinite), moments.allSatisfy(\.isFinite)
        else { return nil }
        self.init()
        self.paceMap = paceMap
        self.gram = gram
        self.moments = moments
        self.samples = samples
        self.residuals = residuals
        refit()
    }

    // MARK: - Estimates

    /// The median ETA and its 10–90 % range, seconds.
    public func estimate(_ features: EtaFeatures) -> (seconds: Double, low: Double, high: Double) {
        let mean = (coefficientVector * features.vector).sum()
        let first = 3 * Self.band(of: features)
        func seconds(_ residual: Double) -> Double { max(Self.minimumSeconds, min(exp(mean + residual), 86_400)) }
        return (seconds(bandQuantiles[first + 1]), seconds(bandQuantiles[first]), seconds(bandQuantiles[first + 2]))
    }

    static func band(of features: EtaFeatures) -> Int {
        let logEdge = features.vector[1]
        return bandLogLimits.firstIndex { logEdge < $0 } ?? bandLimits.count
    }

    // MARK: - Learning

    /// A step of a trip at `speed` m/s, ending at `position` at `time`.
    public mutating func observeStep(speed: Double, at position: Coordinate, time: UnixMillis) {
        guard speed.isFinite, speed >= 0 else { return }
        paceMap.observe(speed: speed, at: position, time: time)
    }

    /// A trip arrived: each checkpoint's features and the seconds it actually had left.
    /// The residuals are taken before the update (out of sample), then the coefficients refit.
    /// - Parameter predictor: the model whose predictions the residuals are taken against (this one
    ///   when nil): a partition's learned part counts its residuals against the whole it is part of.
    public mutating func learn(_ checkpoints: [(features: EtaFeatures, remainingSeconds: Double)],
                               residualsAgainst predictor: FleetEtaModel? = nil)
    {
        let predicting = predictor?.coefficients ?? coefficients
        var learned = false
        for (features, remaining) in checkpoints where remaining > 0 && remaining.isFinite {
            let x = features.values
            guard x.count == EtaFeatures.count, x.allSatisfy(\.isFinite) else { continue }
            let y = log(remaining)
            let mean = zip(predicting, x).reduce(0) { $0 + $1.0 * $1.1 }
            residuals[Self.band(of: features)].add(y - mean)
            var index = 0
            for i in 0..<x.count {
                moments[i] += x[i] * y
                for j in i..<x.count {
                    gram[index] += x[i] * x[j]
                    index += 1
                }
            }
            samples += 1
            learned = true
        }
        if learned { refit() }
    }

    /// Another model's learning added to this one's (a partition's into the fleet's), then refit.
    public mutating func merge(_ other: FleetEtaModel) {
        paceMap.merge(other.paceMap)
        for i in gram.indices { gram[i] += other.gram[i] }
        for i in moments.indices { moments[i] += other.moments[i] }
        samples += other.samples
        for i in residuals.indices { residuals[i].merge(other.residuals[i]) }
        refit()
    }

    /// Drops map cells not seen for `cellExpiryHours` before `time`.
    public mutating func expire(before time: UnixMillis) {
        paceMap.expire(before: time, expiryHours: Self.cellExpiryHours)
    }

    /// Solves the ridge regression (X'X + λI) w = X'y + λ w₀; keeps the prior if it is singular.
    private mutating func refit() {
        bandQuantiles = Self.quantiles(of: residuals)
        guard samples > 0 else {  // exactly the prior: solving λI w = λ w₀ could round it
            coefficients = Self.priorCoefficients
            return
        }
        let k = EtaFeatures.count
        var a = Array(repeating: Array(repeating: 0.0, count: k), count: k)
        var index = 0
        for i in 0..<k {
            for j in i..<k {
                a[i][j] = gram[index]
                a[j][i] = gram[index]
                index += 1
            }
            a[i][i] += Self.priorWeight
        }
        let b = (0..<k).map { moments[$0] + Self.priorWeight * Self.priorCoefficients[$0] }
        coefficients = solveLinearSystem(a, b) ?? Self.priorCoefficients
    }
}
