/// Everything the fold knows about one user. A value: checkpoints are copies.
public struct UserState: Sendable, Equatable {
    // Stored properties are declared widest first: Swift lays them out in declaration order,
    // and a user keeps three of these states.

    /// When `location` was taken; `.min` before the first accepted fix.
    public var locationAt: UnixMillis = .min
    /// When the latest `suspect` fix was taken.
    public var suspectAt: UnixMillis = .min
    /// Since when every fix was slower than `FoldSettings.stopSpeed` (stop detection); `.max` while
    /// moving or unknown.
    public var stoppedSince: UnixMillis = .max
    /// Last known device id and user metadata, shared by reference with the fixes that carried them.
    public var extras: FixExtras?
    /// Geofences the user is inside, in geofence-id order.
    public var presences: [Presence] = []
    /// Today's visits per geofence and trip starts per externalId: what places each in its `_id`.
    public var ordinals = EventOrdinals()
    /// The trip's box (`trip`); read in place by the engine's look-ahead (`TimelineStore`).
    private(set) var tripBox: TripBox?
    /// What this user's completed trips taught the ETA.
    public var etaLearning = EtaLearning()
    /// Meters; NaN when unknown.
    public var accuracy: Float = .nan
    /// Smoothed observed speed, m/s; NaN until two fixes were seen.
    public var speed: Float = .nan
    /// Last accepted position.
    public var location: Coordinate?
    /// A run of fixes far from `location` that agree with each other: a real move, or a GPS jump.
    public var suspect: Coordinate?
    public var suspectCount: UInt8 = 0

    public var deviceId: String? { extras?.deviceId }
    public var metadata: RawJSON? { extras?.metadata }

    /// The trip, in a copy-on-write box: checkpoints share it until the live state changes it,
    /// which keeps a user's three states (base, middle, current) small.
    /// Setting it allocates a box: the fold sets it only when a trip starts, changes plan or
    /// stops; per fix it works in place through `uniqueTripBox()`.
    public var trip: TripProgress? {
        get { tripBox?.value }
        set { tripBox = newValue.map { TripBox($0) } }
    }

    /// The trip's box, made unique first, for in-place work that also touches other fields.
    mutating func uniqueTripBox() -> TripBox? {
        guard tripBox != nil else { return nil }
        if !isKnownUniquelyReferenced(&tripBox!) { tripBox = TripBox(tripBox!.value) }
        return tripBox
    }

    /// The box itself, for reading fields without copying the trip out.
    var tripBoxForReading: TripBox? { tripBox }

    /// Lends the open trip (pending or active) to `body` in place (see `lendInPlace`); nil when there
    /// is none. `trip` copies it out of its box. `body` only reads it.
    public func withTrip<R>(_ body: (borrowing TripProgress) -> R) -> R? {
        guard let box = tripBox else { return nil }
        return lendInPlace(&box.value, body)
    }

    /// When the open trip (pending or active) expires, without copying it out.
    var tripExpiresAt: UnixMillis? { tripBox?.expiresAt }

    /// Whether a trip is active, without copying it out.
    public var hasActiveTrip: Bool {
        guard let box = tripBox else { return false }
        return box.value.snapshot.status.isActive
    }
    public init() {}

    public static func == (lhs: UserState, rhs: UserState) -> Bool {
        lhs.location == rhs.location
            && lhs.locationAt == rhs.locationAt && lhs.accuracy.bitPattern == rhs.accuracy.bitPattern
            && lhs.speed.bitPattern == rhs.speed.bitPattern && lhs.extras == rhs.extras && lhs.suspect == rhs.suspect && lhs.suspectAt == rhs.suspectAt
            && lhs.stoppedSince == rhs.stoppedSince
            && lhs.suspectCount == rhs.suspectCount && lhs.presences == rhs.presences
            && lhs.ordinals == rhs.ordinals && lhs.trip == rhs.trip
            && lhs.etaLearning == rhs.etaLearning
    }

    /// The public view for the users topic.
    public func snapshot(userId: String, in geofences: GeofenceTable) -> UserSnapshot {
        UserSnapshot(
            userId: userId, deviceId: deviceId, metadata: metadata,
            lastFixAt: locationAt == .min ? nil : locationAt, location: location, locationAccuracy: accuracy,
            speed: speed, trip: trip?.snapshot,
            geofences: presences.compactMap { presence in
                geofences.geofence(presence.geofenceID).map {
                    UserSnapshot.Presence(geofence: $0, enteredAt: presence.enteredAt)
                }
            })
    }
}

/// Holder of a user's trip; see `UserState.trip`.
final class TripBox: @unchecked Sendable {
    // Safe: `value` is written only through `UserState.uniqueTripBox()`, after `isKnownUniquelyReferenced`
    // (a box that another state, checkpoint or thread also holds is copied first), or before the box is
    // shared (`UserState.trip`'s setter makes a new one): a box two holders share is only read. The kept
    // `_id` seeds are read and written only by `idHasher`, called by the fold of this box's user, and
    // a user's states are folded by their partition's fold, on one thread at a time (handed between
    // threads with the partition, under the runtime's locks); a state copied to another thread (a
    // snapshot, a changelog record) is only encoded there, which reads `value`, never the seeds. Being
    // derived from `value`, the plan and the user, a seed read from a shared box is right for each holder.
    // The same confinement makes the run-time exclusivity checks redundant (`@exclusivity(unchecked)`): each
    // access paid for one, per fix, in swift_beginAccess and a thread-local lookup.
    @exclusivity(unchecked) var value: TripProgress
    init(_ value: TripProgress) { self.value = value }

    /// The `_id` hasher of the trip's events of `type` before what names one event: the user, the
    /// type, the externalId, the ordinal (the trip's start among its externalId's that day) and (but
    /// for `user.updated_trip`) the current leg's id,
    /// hashed once a trip rather than once an event (an updated_trip each fix; an
    /// arrived_at_wrong_trip_destination each store entered in a city of stores). Derived, so never
    /// persisted nor compared; keyed by what it hashed (the plan names the externalId and the leg),
    /// so a box copied or changed stays right.
    func idHasher(for type: EventType, userIdHasher: StableHasher) -> StableHasher {
        let plan = ObjectIdentifier(value.snapshot.plan), user = userIdHasher.fnv1a, ordinal = value.ordinal
        let isUpdate = type == .updatedTrip
        // Plain values, compared without a retain; the plans kept beside them keep their identifiers unique.
        if let kept = isUpdate ? updatedTripSeed : otherSeed, kept.type == type, kept.plan == plan,
            kept.user == user, kept.ordinal == ordinal
        {
            return kept.hasher
        }
        var hasher = userIdHasher
        hasher.combine(type.rawValue)
        hasher.combine(value.snapshot.plan.externalId)
        ordinal.combine(into: &hasher)
        if !isUpdate, let leg = value.snapshot.plan.currentLeg { hasher.combine(leg.id) }
        let seed = IDSeed(type: type, plan: plan, user: user, ordinal: ordinal, hasher: hasher)
        if isUpdate {
            updatedTripSeed = seed
            updatedTripSeedPlan = value.snapshot.plan
        } else {
            otherSeed = seed
            otherSeedPlan = value.snapshot.plan
        }
        return hasher
    }

    private struct IDSeed {
        var type: EventType
        var plan: ObjectIdentifier
        var user: UInt64
        var ordinal: EventOrdinal
        var hasher: StableHasher
    }

    /// The kept hashers: updated_trip's, and the last other type's, with the plans they were hashed from.
    @exclusivity(unchecked) private var updatedTripSeed: IDSeed?
    @exclusivity(unchecked) private var otherSeed: IDSeed?
    @exclusivity(unchecked) private var updatedTripSeedPlan: TripPlan?
    @exclusivity(unchecked) private var otherSeedPlan: TripPlan?

    /// An instance's bytes: the object header, then `value` (what a prefetch loads; a wrong size costs speed only).
    static let instanceBytes = 16 + MemoryLayout<TripProgress>.size

    /// When the trip expires if still open (pending or active).
    var expiresAt: UnixMillis? {
        guard value.snapshot.status.isOpen else { return nil }
        return value.snapshot.startedAt + value.snapshot.plan.expiry
    }

    /// The earliest of the trip's timers (expiry, leg stop, signal lost), `.max` when none: what
    /// `UserState.nextTimerDue` needs, from the box alone, so that a state read in place (once per
    /// fix) is not copied to call methods on it.
    func nextTimerDue(lastFixAt: UnixMillis, signalLostAfter: UnixMillis) -> UnixMillis {
        min(expiresAt ?? .max, legStopDue ?? .max,
            signalLostDue(lastFixAt: lastFixAt, signalLostAfter: signalLostAfter) ?? .max)
    }
}

extension UserState {
    /// Takes a fix's device id and metadata; a field the fix leaves out keeps its last value.
    mutating func merge(_ incoming: FixExtras) {
        guard let known = extras else {
            extras = incoming
            return
        }
        if known === incoming { return }  // the common case: the fix repeated the known extras
        let deviceId = incoming.deviceId ?? known.deviceId
        let metadata = incoming.metadata ?? known.metadata
        if deviceId == known.deviceId, metadata == known.metadata { return }
        if deviceId == incoming.deviceId, metadata == incoming.metadata {
            extras = incoming
        } else {
            extras = FixExtras(deviceId: deviceId, metadata: metadata)
        }
    }
}
