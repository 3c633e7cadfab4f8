#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Parameters of the ETA model (see `EtaModel`). Fitted on real taxi rides by
/// `bench/eta_model_study.py`; remaining time grows with the square root of the distance left.
public struct EtaSettings: Sendable, Equatable {
    /// Prior of ln(seconds per √meter) before anything is learned. Default: 1.85.
    public var logScalePrior: Double = 1.85
    /// Weight of the prior, in observations. Default: 20.
    public var priorWeight: Double = 20
    /// Shrink applied to the estimate (the mean of a skewed distribution overshoots). Default: 0.9.
    public var shrink: Double = 0.9 { didSet { logShrink = log(shrink) } }
    /// ln `shrink`, for the curve in log space (blended with a fleet model).
    private(set) var logShrink = log(0.9)
    /// Distances below this count as this, meters. Default: 50.
    public var distanceFloor: Double = 50
    /// Smallest ETA, seconds. Default: 15.
    public var minimumSeconds: Double = 15
    /// Road distance over straight-line distance, for `eta.distance`. Default: 1.35.
    public var circuity: Double = 1.35
    /// First interval between learning checkpoints of a trip, seconds; doubles as the trip goes on.
    /// Default: 60.
    public var checkpointInterval: UnixMillis = 60_000
    /// Scale for modes slower or faster than a car (a taxi fleet taught the prior).
    public func modeFactor(_ mode: TravelMode) -> Double {
        switch mode {
        case .car: 1
        case .truck: 1.15
        case .motorbike: 0.9
        case .bike: 1.9
        case .foot: 5.5
        }
    }

    /// ln `modeFactor(mode)`, without a log per fix.
    @inline(__always)
    func logModeFactor(_ mode: TravelMode) -> Double {
        switch mode {
        case .car: 0
        case .truck: logTruckFactor
        case .motorbike: logMotorbikeFactor
        case .bike: logBikeFactor
        case .foot: logFootFactor
        }
    }

    /// Kept in the settings: a global computed by `log` would check its lazy initialization per read.
    private let logTruckFactor = log(1.15), logMotorbikeFactor = log(0.9), logBikeFactor = log(1.9)
    private let logFootFactor = log(5.5)

    /// The fleet's learned model (`FleetEtaModel`, from `--eta-model FILE`): an explicit, versioned
    /// input, read-only in the fold, so an ETA depends on it and the user's own inputs only, whatever
    /// the arrival order. Nil: today's √distance curve alone. Default: nil.
    public var fleetModel: FleetEtaModel? {
        get { fleetModelBox?.model }
        set { fleetModelBox = newValue.map(FleetModelBox.init) }
    }
    /// Whether there is a fleet model, asked without copying it.
    public var hasFleetModel: Bool { fleetModelBox != nil }
    /// Held by reference: settings are copied with every fold context and the model is a few hundred
    /// bytes of arrays and vectors, which each copy moved and retained (on every fix).
    private var fleetModelBox: FleetModelBox?
    /// The box, returned retained. Projected out of the settings instead, the optimizer copied the
    /// whole settings struct around each use, to keep the box alive (on every fix).
    @inline(never)
    func fleetModelReference() -> FleetModelBox? { fleetModelBox }
    /// Weight of the learned model's ln ETA against the √distance curve's (which learns per user).
    /// Default: 0.7 (`bench/eta_learned.py`).
    public var learnedWeight: Double = 0.7
    /// Each partition learns a fleet model from its trips (`EtaLearner`), for `replay --eta-model-out`.
    /// Default: false.
    public var learnsFleetModel = false
    /// ln(low / ETA) and ln(high / ETA) of the range without a fleet model: the 10th and 90th
    /// percentile of ln(actual / ETA) of the √distance curve at 25/50/75 % of the training split's
    /// rides (`bench/eta_replay.py`). Default: −0.55, 0.66.
    public var priorLowLogRatio: Double = -0.55 { didSet { priorLowFactor = exp(priorLowLogRatio) } }
    public var priorHighLogRatio: Double = 0.66 { didSet { priorHighFactor = exp(priorHighLogRatio) } }
    /// exp of the two: the range's ends over the ETA, kept rather than computed on every fix.
    private(set) var priorLowFactor = exp(-0.55)
    private(set) var priorHighFactor = exp(0.66)

    public init() {}
}

/// A fleet model held by reference in `EtaSettings`.
final class FleetModelBox: Sendable, Equatable {
    let model: FleetEtaModel
    init(_ model: FleetEtaModel) { self.model = model }
    static func == (lhs: FleetModelBox, rhs: FleetModelBox) -> Bool { lhs === rhs || lhs.model == rhs.model }
}
