/// What a trip predicted at 25, 50 and 75 % of its way, kept to grade the ETA against the actual
/// arrival (the trip summary's ETA error).
///
/// "The way" is the straight-line distance to the destination's center at the trip's first ETA; the
/// 25 % milestone is the first ETA from at most 75 % of it, and so on. Distance, not elapsed time:
/// a fraction of the elapsed time is known only once the trip arrived, and by then the prediction
/// made at that moment is gone (the ETA checkpoints are too sparse to look it up).
public struct EtaMilestones: Sendable, Equatable {
    /// Meters to the destination's center at the first ETA; NaN before it.
    public var wayMeters: Float = .nan
    /// Predicted arrival (event time + ETA) at 25, 50 and 75 % of the way; nil until reached.
    public var quarter: UnixMillis?
    public var half: UnixMillis?
    public var threeQuarters: UnixMillis?

    public init() {}

    public static func == (lhs: EtaMilestones, rhs: EtaMilestones) -> Bool {
        // By bit pattern: a trip without an ETA yet (NaN) equals itself.
        lhs.wayMeters.bitPattern == rhs.wayMeters.bitPattern && lhs.quarter == rhs.quarter && lhs.half == rhs.half
            && lhs.threeQuarters == rhs.threeQuarters
    }

    /// Takes the ETA of `time`, from `centerDistance` meters to the destination's center.
    mutating func record(centerDistance: Double, etaSeconds: Int32, at time: UnixMillis) {
        guard wayMeters > 0 else {
            if wayMeters.isNaN { wayMeters = Float(max(centerDistance, 0)) }
            return
        }
        guard threeQuarters == nil else { return }
        let left = centerDistance / Double(wayMeters)
        let predicted = time + Int64(etaSeconds) * 1000
        if quarter == nil, left <= 0.75 { quarter = predicted }
        if half == nil, left <= 0.5 { half = predicted }
        if left <= 0.25 { threeQuarters = predicted }
    }

    /// The ETA errors against an arrival at `arrival`.
    func errors(arrival: UnixMillis) -> EtaErrors {
        func error(_ predicted: UnixMillis?) -> Int32? {
            predicted.map { Int32(clamping: (arrival - $0) / 1000) }
        }
        return EtaErrors(quarter: error(quarter), half: error(half), threeQuarters: error(threeQuarters))
    }
}

/// Actual minus predicted arrival, whole seconds, at 25, 50 and 75 % of a trip's way (see
/// `EtaMilestones`): positive when the user arrived later than predicted. Nil for a milestone the
/// trip never reached, or when it never arrived.
public struct EtaErrors: Sendable, Equatable {
    public var quarter: Int32?
    public var half: Int32?
    public var threeQuarters: Int32?

    public init(quarter: Int32? = nil, half: Int32? = nil, threeQuarters: Int32? = nil) {
        self.quarter = quarter
        self.half = half
        self.threeQuarters = threeQuarters
    }
}
