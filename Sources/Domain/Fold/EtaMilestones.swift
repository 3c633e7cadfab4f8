/// What a trip predicted at 25, 50 and 75 % of its way, kept to grade the ETA against the actual
/// arrival (the trip summary's ETA error).
///
/// "The way" is the straight-line distance to the destination's center at the trip's first ETA; the
/// 25 % milestone is the first ETA from at most 75 % of it, and so on. Distance, not elapsed time:
/// a fraction of the elapsed time is known only once the trip arrived, and by then the prediction
/// made at that moment is gone (the ETA checkpoints are too sparse to look it up).
///
/// 16 bytes, as it rides in every copy of an active trip: predicted arrivals in whole seconds after
/// the trip's start, `Int32.min` for a milestone not reached.
public struct EtaMilestones: Sendable, Equatable {
    static let unreached = Int32.min
    /// Meters to the destination's center at the first ETA; NaN before it.
    public var wayMeters: Float = .nan
    private var predicted: (Int32, Int32, Int32) = (unreached, unreached, unreached)

    public init() {}

    /// Predicted arrival at 25, 50 and 75 % of the way, seconds after the trip's start; nil until reached.
    public var quarter: Int32? {
        get { predicted.0 == Self.unreached ? nil : predicted.0 }
        set { predicted.0 = newValue ?? Self.unreached }
    }
    public var half: Int32? {
        get { predicted.1 == Self.unreached ? nil : predicted.1 }
        set { predicted.1 = newValue ?? Self.unreached }
    }
    public var threeQuarters: Int32? {
        get { predicted.2 == Self.unreached ? nil : predicted.2 }
        set { predicted.2 = newValue ?? Self.unreached }
    }

    public static func == (lhs: EtaMilestones, rhs: EtaMilestones) -> Bool {
        // By bit pattern: a trip without an ETA yet (NaN) equals itself.
        lhs.wayMeters.bitPattern == rhs.wayMeters.bitPattern && lhs.predicted == rhs.predicted
    }

    /// Takes the ETA of `elapsedSeconds` into the trip, from `centerDistance` meters to the destination's center.
    mutating func record(centerDistance: Double, etaSeconds: Int32, elapsedSeconds: Int32) {
        guard wayMeters > 0 else {
            if wayMeters.isNaN { wayMeters = Float(max(centerDistance, 0)) }
            return
        }
        guard predicted.2 == Self.unreached else { return }
        let left = centerDistance / Double(wayMeters)
        let arrival = elapsedSeconds &+ etaSeconds
        if predicted.0 == Self.unreached, left <= 0.75 { predicted.0 = arrival }
        if predicted.1 == Self.unreached, left <= 0.5 { predicted.1 = arrival }
        if left <= 0.25 { predicted.2 = arrival }
    }

    /// The ETA errors against an arrival `arrivalSeconds` after the trip's start.
    func errors(arrivalSeconds: Int32) -> EtaErrors {
        func error(_ predicted: Int32?) -> Int32? { predicted.map { arrivalSeconds &- $0 } }
        return EtaErrors(quarter: error(quarter), half: error(half), threeQuarters: error(threeQuarters))
    }
}

/// Actual minus predicted arrival, whole seconds, at 25, 50 and 75 % of a trip's way (see
/// `EtaMilestones`): positive when the user arrived later than predicted. Nil for a milestone the
/// trip never reached, or when it never arrived. Stored as 12 bytes (`Int32.min`: none).
public struct EtaErrors: Sendable, Equatable {
    private var seconds: (quarter: Int32, half: Int32, threeQuarters: Int32)

    public init(quarter: Int32? = nil, half: Int32? = nil, threeQuarters: Int32? = nil) {
        let none = EtaMilestones.unreached
        seconds = (quarter ?? none, half ?? none, threeQuarters ?? none)
    }

    public var quarter: Int32? {
        get { seconds.quarter == EtaMilestones.unreached ? nil : seconds.quarter }
        set { seconds.quarter = newValue ?? EtaMilestones.unreached }
    }
    public var half: Int32? {
        get { seconds.half == EtaMilestones.unreached ? nil : seconds.half }
        set { seconds.half = newValue ?? EtaMilestones.unreached }
    }
    public var threeQuarters: Int32? {
        get { seconds.threeQuarters == EtaMilestones.unreached ? nil : seconds.threeQuarters }
        set { seconds.threeQuarters = newValue ?? EtaMilestones.unreached }
    }

    public static func == (lhs: EtaErrors, rhs: EtaErrors) -> Bool { lhs.seconds == rhs.seconds }
}
