/// The behaviours of a fleet that runs for hours in front of a person (`SimulationSettings.liveliness`).
/// Every default is off: a fleet without them is the one earlier versions generated for the same seed.
public struct Liveliness: Sendable, Equatable {
    /// Trip drivers start their first trip at a random step within this many seconds, not all at the
    /// first step. Default: 0 (all at once).
    public var firstTripWithin: Int64 = 0
    /// Seconds between a completed trip and the next one, drawn per trip; the driver drives off
    /// meanwhile. Default: 0…0 (the next trip starts at once, from the destination).
    public var tripBreak: ClosedRange<Int64> = 0...0
    /// Share of trips whose courier first stops at another geofence of the destination's tag (a store of
    /// the same chain, on the way), stands still there for `wrongStopLength`, then drives on to the real
    /// destination. Default: 0.
    public var wrongStopShare = 0.0
    /// Seconds a wrong stop lasts. Default: 180…360.
    public var wrongStopLength: ClosedRange<Int64> = 180...360
    /// Chance per fix that a device goes quiet (no fix at all) for `quietLength` fixes. Default: 0.
    public var quietChance = 0.0
    /// Fixes a quiet device does not send. Default: 72…180 (6 to 15 minutes at a fix every 5 s).
    public var quietLength: ClosedRange<Int> = 72...180
    /// Share of quiet devices that kept their fixes offline and send them all once back. Default: 0.5.
    public var quietReplayShare = 0.5
    /// Share of trips scheduled to arrive before the drive can end (50–85 % of its time at the
    /// courier's speed), so they run late. Default: 0 (every trip is due 20 minutes after its start).
    public var tightScheduleShare = 0.0

    public init() {}

    /// What `tripstream demo` runs with: trips start over the first 10 minutes and follow one another
    /// after breaks of 30 s to 5 min; 4 % of trips stop 3 to 6 minutes at a wrong store; a device in
    /// about 3,000 fixes goes quiet for 6 to 15 minutes (half of them replay their fixes once back);
    /// 12 % of trips are scheduled too tight.
    public static var demo: Liveliness {
        var liveliness = Liveliness()
        liveliness.firstTripWithin = 10 * 60
        liveliness.tripBreak = 30...300
        liveliness.wrongStopShare = 0.04
        liveliness.quietChance = 0.0003
        liveliness.tightScheduleShare = 0.12
        return liveliness
    }

    /// Whether any behaviour is on.
    public var isOn: Bool { self != Liveliness() }
}
