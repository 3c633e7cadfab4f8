/// A trip in progress: what the events show plus what the fold needs to keep measuring it.
public struct TripProgress: Sendable, Equatable {
    /// A point where the ETA model will later compare its guess with the actual arrival.
    /// 8 bytes: seconds since the trip started, and ½·ln(meters to go) then.
    public struct Checkpoint: Sendable, Equatable {
        public var elapsedSeconds: Int32
        public var halfLogDistance: Float

        public init(elapsedSeconds: Int32, halfLogDistance: Float) {
            self.elapsedSeconds = elapsedSeconds
            self.halfLogDistance = halfLogDistance
        }
    }

    public var snapshot: TripSnapshot
    /// The trip's start among this user's starts of its externalId that day; with the externalId it
    /// names the trip's events (`_id`).
    public var ordinal: EventOrdinal
    /// Filtered mileage so far, meters.
    public var distance: Double = 0
    /// Last point counted into mileage.
    public var mileageAnchor: Coordinate?
    /// Hysteresis state for the destination.
    public var insideDestination = false
    public var leftDestinationAt: UnixMillis?
    public var checkpoints = CheckpointList()
    /// Where the destination geofence sat in the table when last looked up (a hint, not state).
    public var destinationSlot: Int32 = -1
    /// Elapsed trip time at which the next checkpoint is due, and the interval after it.
    public var nextCheckpointAt: UnixMillis = 0
    public var checkpointInterval: UnixMillis = 0
    /// `user.delayed_during_trip` was published for this trip (it fires once a trip).
    public var delayNotified = false
    /// Set when `user.trip_signal_lost` fired: the time of the last fix before the gap (or the trip's
    /// start); cleared by the next fix, which yields `user.trip_signal_restored`.
    public var signalLostSince: UnixMillis?
    /// Time of the first fix of the current run of rising ETAs (`snapshot.etaRisingStreak` > 0).
    public var etaRisingSince: UnixMillis?
    /// `user.moving_away_from_trip_destination` fired for the current run of rising ETAs.
    public var movingAwayNotified = false
    /// Predictions at 25/50/75 % of the way, graded at the stop (`TripSummary.etaErrors`).
    public var etaMilestones = EtaMilestones()
    /// The trip's own pace toward the current destination, for the learned ETA (updated only when a
    /// fleet model is loaded).
    public var pace = TripPace()
    /// Learning samples for the fleet model (empty unless the partition learns).
    public var etaSamples = EtaSampleList()

    public static func == (lhs: TripProgress, rhs: TripProgress) -> Bool {
        lhs.snapshot == rhs.snapshot && lhs.ordinal == rhs.ordinal && lhs.distance == rhs.distance
            && lhs.mileageAnchor == rhs.mileageAnchor && lhs.insideDestination == rhs.insideDestination
            && lhs.leftDestinationAt == rhs.leftDestinationAt && lhs.checkpoints == rhs.checkpoints
            && lhs.nextCheckpointAt == rhs.nextCheckpointAt && lhs.checkpointInterval == rhs.checkpointInterval
            && lhs.delayNotified == rhs.delayNotified && lhs.signalLostSince == rhs.signalLostSince
            && lhs.etaRisingSince == rhs.etaRisingSince && lhs.movingAwayNotified == rhs.movingAwayNotified
            && lhs.etaMilestones == rhs.etaMilestones && lhs.pace == rhs.pace
            && lhs.etaSamples == rhs.etaSamples
    }

    public init(snapshot: TripSnapshot, ordinal: EventOrdinal) {
        self.snapshot = snapshot
        self.ordinal = ordinal
    }

    /// Heads for the next leg's destination (`plan`) at `time`: what was measured against the last
    /// one (arrival, ETA, its rise, milestones, learning checkpoints) starts over; mileage goes on.
    public mutating func headTo(_ plan: TripPlan, at time: UnixMillis) {
        snapshot.plan = plan
        snapshot.status = .started
        snapshot.arrivedAt = nil
        snapshot.eta = nil
        snapshot.etaRisingStreak = 0
        insideDestination = false
        leftDestinationAt = nil
        destinationSlot = -1
        etaRisingSince = nil
        movingAwayNotified = false
        etaMilestones = EtaMilestones()
        pace = TripPace()
        etaSamples = EtaSampleList()
        checkpoints = CheckpointList()
        checkpointInterval = 0
        nextCheckpointAt = time - snapshot.startedAt
    }

    /// Whether `user.moving_away_from_trip_destination` fires at `time`: the ETA has risen on every fix
    /// for `after` (0: never), before arrival; once a run of rising ETAs.
    public mutating func startsMovingAway(at time: UnixMillis, after: UnixMillis) -> Bool {
        guard after > 0, let since = etaRisingSince, !movingAwayNotified, time - since >= after,
            snapshot.status == .started || snapshot.status == .approaching
        else { return false }
        movingAwayNotified = true
        return true
    }

    /// Recomputes `trip.delay` at `time` from the ETA (or the arrival).
    /// - Returns: whether `user.delayed_during_trip` fires now: the trip became delayed for the first
    ///   time, before arriving. It fires once a trip: a trip that catches up shows `delayed: false`
    ///   and, if it slips again, `delayed: true` on its next events, without a second event.
    public mutating func updateDelay(at time: UnixMillis) -> Bool {
        guard let scheduled = snapshot.plan.scheduledArrivalAt else {
            snapshot.delay = nil
            return false
        }
        let arrival = snapshot.arrivedAt ?? time + Int64(snapshot.eta?.durationSeconds ?? 0) * 1000
        let late = arrival - scheduled
        let delayed = late > Int64(snapshot.plan.delayThreshold) * 60_000
        snapshot.delay = TripDelay(delayed: delayed, minutes: late > 0 ? Int32(clamping: (late + 59_999) / 60_000) : 0)
        guard delayed, !delayNotified, snapshot.arrivedAt == nil, snapshot.status.isActive else { return false }
        delayNotified = true
        return true
    }
}
