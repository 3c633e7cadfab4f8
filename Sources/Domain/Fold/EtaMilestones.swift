/// What a trip predicted at 25, 50 and 75 % of its way, kept to grade the ETA against the actual
/// arrival (the trip summary's ETA error).
///
/// "The way" is the straight-line distance to the destination's center at the trip's first ETA; the
/// 25 % milestone is the first ETA from at most 75 % of it, and so on. Distance, not elapsed time:
/// a fraction of the elapsed time is known only once the trip arrived, and by then the prediction
/// made at that moment is gone (the ETA checkpoints are too sparse to look it up).
///
/// 28 bytes, as it rides in every copy of an active trip: predicted arrivals in whole seconds after
/// the trip's start, `Int32.min` for a milestone not reached, and how far below and above them the
/// ETA's range reached (seconds, at most 18 h).
public struct EtaMilestones: Sendable, Equatable {
    static let unreached = Int32.min
    /// Meters to the destination's center at the first ETA; NaN before it.
    public var wayMeters: Float = .nan
    private var predicted: (Int32, Int32, Int32) = (unreached, unreached, unreached)
    /// Seconds from each predicted arrival down to the range's low end and up to its high end.
    public var rangeMargins: [(below: UInt16, above: UInt16)] {
        get { [margins.0, margins.1, margins.2].map { (UInt16($0 >> 16), UInt16($0 & 0xFFFF)) } }
        set {
            let packed = newValue.map { UInt32($0.below) << 16 | UInt32($0.above) }
            margins = (packed[0], packed[1], packed[2])
        }
    }
    private var margins: (UInt32, UInt32, UInt32) = (0, 0, 0)

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
            && lhs.margins == rhs.margins
    }

    /// Takes the ETA of `elapsedSeconds` into the trip, from `centerDistance` meters to the destination's center.
    mutating func record(centerDistance: Double, eta: Eta, elapsedSeconds: Int32) {
        guard wayMeters > 0 else {
            if wayMeters.isNaN { wayMeters = Float(max(centerDistance, 0)) }
            return
        }
        guard predicted.2 == Self.unreached else { return }
        let left = centerDistance / Double(wayMeters)
        let arrival = elapsedSeconds &+ eta.durationSeconds
        let margin = UInt32(UInt16(clamping: max(eta.durationSeconds &- eta.durationLowSeconds, 0))) << 16
            | UInt32(UInt16(clamping: max(eta.durationHighSeconds &- eta.durationSeconds, 0)))
        if predicted.0 == Self.unreached, left <= 0.75 { (predicted.0, margins.0) = (arrival, margin) }
        if predicted.1 == Self.unreached, left <= 0.5 { (predicted.1, margins.1) = (arrival, margin) }
        if left <= 0.25 { (predicted.2, margins.2) = (arrival, margin) }
    }

    /// The ETA errors against an arrival `arrivalSeconds` after the trip's start, and whether the
    /// arrival fell within each milestone's range.
    func errors(arrivalSeconds: Int32) -> EtaErrors {
        func error(_ predicted: Int32?) -> Int32? { predicted.map { arrivalSeconds &- $0 } }
        let ranges = rangeMargins
        func inRange(_ predicted: Int32?, _ index: Int) -> Bool? {
            predicted.map {
                arrivalSeconds >= $0 &- Int32(ranges[index].below) && arrivalSeconds <= $0 &+ Int32(ranges[index].above)
            }
        }
        return EtaErrors(quarter: error(quarter), half: error(half), threeQuarters: error(threeQuarters),
                         inRange: (inRange(quarter, 0), inRange(half, 1), inRange(threeQuarters, 2)))
    }
}

/// Actual minus predicted arrival, whole seconds, at 25, 50 and 75 % of a trip's way (see
/// `EtaMilestones`): positive when the user arrived later than predicted. Nil for a milestone the
/// trip never reached, or when it never arrived. Stored as 12 bytes (`Int32.min`: none).
public struct EtaErrors: Sendable, Equatable {
    private var seconds: (quarter: Int32, half: Int32, threeQuarters: Int32)
    /// Whether the arrival fell within the ETA's range at each milestone: bit i (0…2) graded, bit
    /// 4 + i inside.
    public private(set) var rangeFlags: UInt8 = 0

    public init(quarter: Int32? = nil, half: Int32? = nil, threeQuarters: Int32? = nil,
                inRange: (Bool?, Bool?, Bool?) = (nil, nil, nil))
    {
        let none = EtaMilestones.unreached
        seconds = (quarter ?? none, half ?? none, threeQuarters ?? none)
        for (index, flag) in [inRange.0, inRange.1, inRange.2].enumerated() {
            guard let flag else { continue }
            rangeFlags |= 1 << UInt8(index) | (flag ? 1 << UInt8(4 + index) : 0)
        }
    }

    /// Flags as the state store keeps them (`rangeFlags`).
    public init(quarter: Int32?, half: Int32?, threeQuarters: Int32?, rangeFlags: UInt8) {
        self.init(quarter: quarter, half: half, threeQuarters: threeQuarters)
        self.rangeFlags = rangeFlags & 0x77
    }

    /// Whether the arrival was within the range at 25, 50 and 75 % of the way; nil where not graded.
    public var inRange: (quarter: Bool?, half: Bool?, threeQuarters: Bool?) {
        func flag(_ i: UInt8) -> Bool? { rangeFlags & (1 << i) == 0 ? nil : rangeFlags & (1 << (4 + i)) != 0 }
        return (flag(0), flag(1), flag(2))
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

    public static func == (lhs: EtaErrors, rhs: EtaErrors) -> Bool {
        lhs.seconds == rhs.seconds && lhs.rangeFlags == rhs.rangeFlags
    }
}
