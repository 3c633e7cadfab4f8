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
    /// The user's trip number; with the externalId it names the trip's events (`_id`).
    public var ordinal: UInt32
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

    public static func == (lhs: TripProgress, rhs: TripProgress) -> Bool {
        lhs.snapshot == rhs.snapshot && lhs.ordinal == rhs.ordinal && lhs.distance == rhs.distance
            && lhs.mileageAnchor == rhs.mileageAnchor && lhs.insideDestination == rhs.insideDestination
            && lhs.leftDestinationAt == rhs.leftDestinationAt && lhs.checkpoints == rhs.checkpoints
            && lhs.nextCheckpointAt == rhs.nextCheckpointAt && lhs.checkpointInterval == rhs.checkpointInterval
    }

    public init(snapshot: TripSnapshot, ordinal: UInt32) {
        self.snapshot = snapshot
        self.ordinal = ordinal
    }
}
