/// What a fold step reads besides the user's state: the geofence table, the settings, and whether
/// events of this step are `replayed`.
public struct FoldContext: Sendable {
    public internal(set) var geofences: GeofenceTable
    public let settings: FoldSettings
    /// Events of this step come from an offline replay (Radar's `replayed`).
    public var replayed: Bool
    /// The user being folded (kept out of the state: a timeline holds three states).
    public var userId: String {
        get { foldedUserId }
        set {
            foldedUserId = newValue
            userIdHasher = Self.hasher(of: newValue)
        }
    }
    private var foldedUserId: String
    /// A `StableHasher` that has combined `userId`: where every event id of the user starts.
    public var userIdHasher: StableHasher
    /// The user's earliest timer, when the caller knows it for the state being folded (the partition's
    /// timer queue does for the live state): folding an input before it skips the timer check.
    /// `.min`: unknown, always check.
    public var nextTimerDue: UnixMillis = .min
    /// The partition's learning of the fleet ETA model (`replay --eta-model-out`); nil: no learning.
    public var etaLearner: EtaLearner?

    public init(userId: String, geofences: GeofenceTable, settings: FoldSettings, replayed: Bool) {
        self.init(userId: userId, userIdHasher: Self.hasher(of: userId), geofences: geofences, settings: settings,
                  replayed: replayed)
    }

    /// With the user id's hasher kept by its timeline: hashing the id again per event is a loop of a
    /// multiply per byte, several times per fix in a geofence-dense city.
    init(userId: String, userIdHasher: StableHasher, geofences: GeofenceTable, settings: FoldSettings,
         replayed: Bool)
    {
        foldedUserId = userId
        self.userIdHasher = userIdHasher
        self.geofences = geofences
        self.settings = settings
        self.replayed = replayed
    }
}

extension FoldContext {
    /// Aims the context at another step: the partition's fold keeps one context for all its steps
    /// (see `PartitionFold.step`). The table is replaced only when it is another one.
    mutating func reuse(userId: String, userIdHasher: StableHasher, geofences: GeofenceTable, replayed: Bool) {
        foldedUserId = userId
        self.userIdHasher = userIdHasher
        self.replayed = replayed
        if !self.geofences.isSameTable(as: geofences) { self.geofences = geofences }
    }

    /// Drops the reference to the table of the last step (a kept one would make the table's next
    /// change copy it whole).
    mutating func letGoOfGeofences() {
        if !geofences.isSameTable(as: .empty) { geofences = .empty }
    }

    /// A hasher that has combined `userId` (see `userIdHasher`).
    static func hasher(of userId: String) -> StableHasher {
        var hasher = StableHasher()
        hasher.combine(userId)
        return hasher
    }
}

/// What became of one input in the fold; the counters count these.
public enum FoldOutcome: UInt8, Sendable {
    case applied
    /// A fix implying an impossible speed: a GPS jump, left out of the state.
    case filteredJump
    /// Too inaccurate to decide geofences; the location was still updated.
    case tooInaccurate
    /// A command about a trip the user does not have (update, complete or cancel): no effect
    /// unless a late `start` puts the trip before it.
    case unknownTrip
    /// An update asking for a status the trip cannot go to from where it is (pending → arrived,
    /// arrived → started …): no effect; dead-lettered `invalid_transition` when folded in order.
    case invalidTransition
}
