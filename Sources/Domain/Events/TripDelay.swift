/// Radar's `trip.delay`: the trip's predicted arrival against its `scheduledArrivalAt`.
///
/// Present on every event of a trip that has `scheduledArrivalAt`, and recomputed on each of them
/// (predicted arrival = event time + ETA; after arrival, the arrival itself).
public struct TripDelay: Sendable, Equatable {
    /// The predicted lateness is more than the trip's `delayThreshold`. Goes back to false if the trip
    /// catches up.
    public var delayed: Bool
    /// Radar's `scheduledArrivalTimeDelay`: predicted minutes late, rounded up; 0 when on time or early.
    public var minutes: Int32

    public init(delayed: Bool, minutes: Int32) {
        self.delayed = delayed
        self.minutes = minutes
    }
}
