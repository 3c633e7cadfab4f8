/// The fold of one input partition: every user of the partition, their timelines, the partition's
/// stream time and its timers. Pure and deterministic: `tripstream replay` and the Kafka runtime
/// both drive it, so a file replay and a live run give the same events.
public struct PartitionFold: Sendable {
    public let settings: FoldSettings
    /// Where the users' older history lives (see `UserTimeline`).
    public let history: any HistoryStore
    private var users = UserIndex()
    private var timelines = TimelineStore()
    private var timers = TimerQueue()
    private var touched: [Int32] = []
    private var isTouched: [Bool] = []
    /// Users with inputs queued for `settle`.
    private var unsettled: [Int32] = []
    /// Slots of users that left memory, to reuse (their timelines are placeholders with no userId).
    private var freeSlots: [Int32] = []
    /// The context of every fold step, aimed at each in place (`step`); its table is let go by `settle`.
    private var context: FoldContext
    /// Inputs admitted since the first of the queued late inputs (`FoldSettings.latePlacementInputs`).
    private var inputsSincePlacement = 0
    /// The newest event time folded in this partition; timers fire on it.
    public private(set) var streamTime: UnixMillis = .min
    public var counters = FoldCounters()

    public init(settings: FoldSettings = FoldSettings(), history: any HistoryStore = MemoryHistoryStore()) {
        var settings = settings
        settings.segmentInputs = max(settings.segmentInputs, 2)
        self.settings = settings
        self.history = history
        context = FoldContext(userId: "", geofences: .empty, settings: settings, replayed: false)
        if settings.eta.learnsFleetModel { context.etaLearner = EtaLearner() }
    }

    /// What this partition learned of the fleet ETA model, when `settings.eta.learnsFleetModel`.
    public var etaLearner: EtaLearner? { context.etaLearner }

    /// What became of one input.
    public enum Result: Equatable, Sendable {
        case accepted
        case duplicate
        case rejected(RejectionReason, detail: String)
    }

    /// Users in memory.
    public var userCount: Int { timelines.count - freeSlots.count }

    public func state(of userId: String) -> UserState? {
        existingSlot(of: userId).map { timelines[$0].current }
    }

    public func timeline(of userId: String) -> UserTimeline? {
        existingSlot(of: userId).map { timelines[$0] }
    }

    // MARK: - Inputs

    /// Folds a fix, appending the events to publish.
    /// - Parameter processingTime: wall clock in a live run, stream time in a file replay; decides
    ///   `late` and rejects fixes from the future.
    public mutating func process(_ fix: Fix, geofences: GeofenceTable, processingTime: UnixMillis,
                                 events: inout [Event]) -> Result
    {
        counters.fixes += 1
        let slot = slot(for: fix.userId)
        var extras: FixExtras?
        if fix.deviceId != nil || fix.metadata != nil {
            // Reuse the user's current extras when the fix repeats them: no allocation per fix.
            if let known = timelines[slot].current.extras, known.deviceId == fix.deviceId,
                known.metadata == fix.metadata
            {
                extras = known
            } else {
                extras = FixExtras(deviceId: fix.deviceId, metadata: fix.metadata)
            }
        }
        return admit(TimelineInput(fix: fix, extras: extras), slot: slot, geofences: geofences,
                     processingTime: processingTime, events: &events)
    }

    /// Folds a trip command, appending the events to publish.
    public mutating func process(_ command: TripCommand, geofences: GeofenceTable, processingTime: UnixMillis,
                                 events: inout [Event]) -> Result
    {
        counters.commands += 1
        return admit(TimelineInput(command: command), slot: slot(for: command.userId), geofences: geofences,
                     processingTime: processingTime, events: &events)
    }

    private mutating func admit(_ input: TimelineInput, slot: Int32, geofences: GeofenceTable,
                                processingTime: UnixMillis, events: inout [Event]) -> Result
    {
        if input.time > processingTime + settings.maxClockSkew {
            return reject(.futureTimestamp, "createdAt is \((input.time - processingTime) / 1000) s ahead of processing time")
        }
        let first = events.count
        var invalid = false
        let admission = step(slot, geofences: geofences, replayed: input.replayed, nextTimerDue: timers.due(of: slot)) {
            $0.admit(input, context: $1, store: $2, events: &events)
        }
        switch admission {
        case let .folded(outcome):
            record(outcome)
            invalid = outcome == .invalidTransition
        case .deferred:
            counters.lateInputs += 1
            if timelines[slot].pending.count == 1 { unsettled.append(slot) }
            // A queue stays bounded whoever forgets to settle: place it now.
            if timelines[slot].pending.count >= Self.maximumQueued {
                settle(slot, geofences: geofences, processingTime: processingTime, events: &events)
            }
        case .duplicate:
            counters.duplicates += 1
            return .duplicate
        case .flooded:
            return reject(.timestampFlood, "more than \(UserTimeline.maximumEqualTimes) inputs of this user at createdAt \(input.time) ms")
        case let .tooLate(behind):
            return reject(.tooLate, "createdAt is \(Self.describe(behind)) behind this user's newest input, beyond the replay horizon of \(Self.describe(settings.replayHorizon)) or the history kept")
        }
        markTouched(slot)
        schedule(slot, geofences: geofences)
        if input.time > streamTime {
            streamTime = input.time
            fireDueTimers(geofences: geofences, processingTime: processingTime, events: &events)
        }
        finish(&events, from: first, processingTime: processingTime)
        // Counted from the first input queued: a buffer of late fixes is placed in one refold per user.
        if !unsettled.isEmpty {
            inputsSincePlacement += 1
            if inputsSincePlacement >= settings.latePlacementInputs {
                placeQueuedInputs(geofences: geofences, processingTime: processingTime, events: &events)
            }
        }
        if invalid {
            return reject(.invalidTransition, "the trip's current status does not allow the status this command asks for")
        }
        return .accepted
    }

    /// Queued inputs per user after which they are placed at once, batch or not.
    static let maximumQueued = 65_536

    static func describe(_ millis: UnixMillis) -> String {
        let seconds = millis / 1000
        if seconds < 120 { return "\(seconds) s" }
        if seconds < 7200 { return "\(seconds / 60) min \(seconds % 60) s" }
        return "\(seconds / 3600) h \(seconds % 3600 / 60) min"
    }

    // MARK: - Settling late inputs

    /// Places every queued late input now (one refold per user), appending the events to publish, and
    /// ends the batch (`endBatch`). The fold places them by itself as `FoldSettings.latePlacementInputs`
    /// says; call it before reading or persisting states, and at the end of the inputs.
    public mutating func settle(geofences: GeofenceTable, processingTime: UnixMillis, events: inout [Event]) {
        placeQueuedInputs(geofences: geofences, processingTime: processingTime, events: &events)
        endBatch()
    }

    /// Ends a batch of inputs without placing the late ones: the table may change before the next
    /// batch, and a context kept would hold the old table, whose next change would then copy it whole.
    public mutating func endBatch() { context.letGoOfGeofences() }

    private mutating func placeQueuedInputs(geofences: GeofenceTable, processingTime: UnixMillis,
                                            events: inout [Event])
    {
        inputsSincePlacement = 0
        guard !unsettled.isEmpty else { return }
        let first = events.count
        let slots = unsettled
        unsettled.removeAll(keepingCapacity: true)
        for slot in slots { settle(slot, geofences: geofences, processingTime: processingTime, events: &events) }
        // A placed input may have moved a timer to before the stream time (a signal-lost timer counted
        // from a late fix): fire it now, as the in-order fold did when stream time passed it.
        fireDueTimers(geofences: geofences, processingTime: processingTime, events: &events)
        finish(&events, from: first, processingTime: processingTime)
    }

    public var hasUnsettledInputs: Bool { !unsettled.isEmpty }

    private mutating func settle(_ slot: Int32, geofences: GeofenceTable, processingTime: UnixMillis,
                                 events: inout [Event])
    {
        guard timelines[slot].hasPending else { return }  // `unsettled` may still list it: harmless
        let settlement = step(slot, geofences: geofences, replayed: true) {
            $0.settle(context: $1, processingTime: processingTime, store: $2, events: &events)
        }
        counters.rewinds += 1
        counters.refoldedInputs += settlement.refolded
        counters.duplicates += settlement.duplicates
        counters.lateInputs -= settlement.duplicates + settlement.flooded
        if settlement.flooded > 0 { counters.rejected[.timestampFlood, default: 0] += settlement.flooded }
        counters.filteredJumps += settlement.filteredJumps
        counters.tooInaccurate += settlement.tooInaccurate
        counters.unmatchedCommands += settlement.unknownTrips
        markTouched(slot)
        schedule(slot, geofences: geofences)
    }

    private mutating func reject(_ reason: RejectionReason, _ detail: String) -> Result {
        counters.rejected[reason, default: 0] += 1
        return .rejected(reason, detail: detail)
    }

    private mutating func record(_ outcome: FoldOutcome) {
        switch outcome {
        case .applied: break
        case .unknownTrip: counters.unmatchedCommands += 1
        case .invalidTransition: break  // counted as a rejection
        case .filteredJump: counters.filteredJumps += 1
        case .tooInaccurate: counters.tooInaccurate += 1
        }
    }

    // MARK: - Stream time

    /// Moves stream time forward (e.g. on a partition that went quiet) and fires due timers.
    public mutating func advanceStreamTime(to time: UnixMillis, geofences: GeofenceTable,
                                           processingTime: UnixMillis, events: inout [Event])
    {
        guard time > streamTime else { return }
        streamTime = time
        let first = events.count
        fireDueTimers(geofences: geofences, processingTime: processingTime, events: &events)
        finish(&events, from: first, processingTime: processingTime)
    }

    /// Stamps `late` on the events appended since `first` (event time behind processing time by
    /// more than `lateLag`) and counts them.
    private mutating func finish(_ events: inout [Event], from first: Int, processingTime: UnixMillis) {
        let lateLag = settings.lateLag
        events.withUnsafeMutableBufferPointer { events in
            // In place: passing `events[index]` on would copy the event (its strings and references).
            for index in first..<events.count {
                events[index].late = processingTime - events[index].createdAt > lateLag
                counters.count(type: events[index].type, revision: events[index].revision)
            }
        }
    }

    private mutating func fireDueTimers(geofences: GeofenceTable, processingTime: UnixMillis, events: inout [Event]) {
        while let entry = timers.popDue(upTo: streamTime) {
            if timelines[entry.slot].hasPending {
                // Place the queued inputs first: they may move or cancel this timer.
                settle(entry.slot, geofences: geofences, processingTime: processingTime, events: &events)
                continue  // rescheduled by the settle: popped again if still due
            }
            let streamTime = streamTime
            step(entry.slot, geofences: geofences, replayed: false) { timeline, context, _ in
                timeline.tick(to: streamTime, context: context, events: &events)
            }
            markTouched(entry.slot)
            schedule(entry.slot, geofences: geofences)
        }
    }

    /// Runs one fold step of `slot`'s user: `body` with the timeline, the partition's context,
    /// aimed at this step in place, and the history store. A context built per step retained the geofence table and
    /// released it when dropped, once per fix, and the table is shared by every partition's thread:
    /// its reference count is a cache line the cores take from one another.
    @inline(__always)
    private mutating func step<R>(_ slot: Int32, geofences: GeofenceTable, replayed: Bool,
                                  nextTimerDue: UnixMillis = .min,
                                  _ body: (inout UserTimeline, FoldContext, any HistoryStore) -> R) -> R
    {
        context.reuse(userId: timelines[slot].userId, userIdHasher: timelines[slot].userIdHasher,
                      geofences: geofences, replayed: replayed)
        context.nextTimerDue = nextTimerDue
        return Self.step(&timelines[slot], &context, history, body)
    }

    /// `body` with both in place: `context` passed on from an `inout` is borrowed, where passed
    /// from a stored property next to the timeline being changed it would be copied first.
    @inline(__always)
    private static func step<R>(_ timeline: inout UserTimeline, _ context: inout FoldContext, _ history: any HistoryStore,
                                _ body: (inout UserTimeline, FoldContext, any HistoryStore) -> R) -> R
    {
        body(&timeline, context, history)
    }

    private mutating func schedule(_ slot: Int32, geofences: GeofenceTable) {
        let due = timelines[slot].nextTimerDue(signalLostAfter: settings.tripSignalLostAfter)
        if due != timers.due(of: slot) { timers.set(slot, due: due) }
    }

    // MARK: - Look-ahead

    /// What `prefetch` loads, each stage through what the one before brought in. A caller folding a
    /// batch asks each input about every stage, in this order, `distance` inputs ahead of the one it
    /// folds: no stage then waits on memory, and the misses of several inputs overlap.
    public enum PrefetchStage: Sendable, CaseIterable {
        /// Where the user's slot is found; the geofence cell index's entry for the fix's location.
        case slotAndCellIndex
        /// The user's timeline, at that slot; the geofence cell that entry names.
        case timelineAndCell
        /// The objects the user's timeline points to (trip, presences, the tail's header); the cell's
        /// list of geofences for the fix's location.
        case heldObjectsAndLists
        /// The geofence the user's trip heads to, found through the trip (every fix of a trip reads it),
        /// and the user's presences beyond the first, as many as the presences' header says.
        case tripDestination

        /// How many inputs ahead of the one folded the stage is asked about. A fix's fold takes
        /// microseconds, a miss a fraction of one: four inputs are time enough for each level, and
        /// two for the last, which waits on nothing the one before did not bring.
        public var distance: Int {
            switch self {
            case .slotAndCellIndex: 12
            case .timelineAndCell: 8
            case .heldObjectsAndLists: 4
            case .tripDestination: 2
            }
        }

        /// The level of the fix's geofence lookup the stage loads, if any.
        public var lookupStage: GeofenceTable.LookupStage? {
            switch self {
            case .slotAndCellIndex: .cellIndex
            case .timelineAndCell: .cell
            case .heldObjectsAndLists: .lists
            case .tripDestination: nil
            }
        }
    }

    /// Starts loading, without waiting, what folding a fix of the user whose `userHash(of:)` is
    /// `userHash`, at `location`, will read cold in a partition of many users or a large geofence
    /// table: a hint that changes nothing (see `PrefetchStage` for when to ask which stage). The
    /// hash is the caller's to take once per input, not once per stage.
    ///
    /// `mutating` only to be passed by reference: called from another module on a fold held by a class
    /// (a replay partition's processor), a non-mutating call copied the whole fold, 816 bytes, per call.
    @inline(__always)
    public mutating func prefetch(userHash: UInt64, location: Coordinate?, geofences: GeofenceTable,
                                  stage: PrefetchStage)
    {
        switch stage {
        case .slotAndCellIndex: users.prefetch(hash: userHash)
        case .timelineAndCell: if let slot = users.likelySlot(hash: userHash) { timelines.prefetch(slot) }
        case .heldObjectsAndLists:
            if let slot = users.likelySlot(hash: userHash) { timelines.prefetchHeldObjects(slot) }
        case .tripDestination:
            if let slot = users.likelySlot(hash: userHash) { timelines.prefetchThroughHeldObjects(slot, in: geofences) }
        }
        if let location, let lookupStage = stage.lookupStage { geofences.prefetchLookup(location, stage: lookupStage) }
    }

    /// The hash by which a partition finds `userId`'s state (`prefetch(userHash:…)`).
    public static func userHash(of userId: String) -> UInt64 { UserIndex.hash(userId) }

    // MARK: - Users

    private mutating func slot(for userId: String) -> Int32 {
        if let slot = existingSlot(of: userId) { return slot }
        var timeline = UserTimeline(userId: userId)
        if history.mayHaveParkedUsers, let parts = history.unpark(userId) {
            timeline = UserTimeline(parts: parts)  // back from idleness: the very state it left with
            counters.usersReturned += 1
        }
        if let slot = freeSlots.popLast() {
            users.insert(userId, at: slot)
            timelines[slot] = timeline
            return slot
        }
        let slot = users.insert(userId)
        timelines.append(timeline)
        timers.addSlot()
        isTouched.append(false)
        return slot
    }

    // MARK: - Idle users

    /// Moves users out of memory who are idle beyond `cutoff` (their newest input is older) with
    /// nothing to wait for: no active trip, inside no geofence, no timer, nothing unsettled or
    /// unflushed. Their exact state goes to the history store (`park`); their next input brings it
    /// back, so nothing they would yield changes. Returns how many left.
    public mutating func evictIdleUsers(before cutoff: UnixMillis) -> Int {
        var evicted = 0
        for slot in 0..<Int32(timelines.count) {
            let evictable: Bool = {
                let timeline = timelines[slot]
                return !timeline.userId.isEmpty && timeline.newestTime < cutoff && !timeline.hasPending
                    && !isTouched[Int(slot)] && timeline.current.presences.isEmpty && !timeline.current.hasActiveTrip
            }()
            guard evictable, timers.due(of: slot) == .max else { continue }
            let userId = timelines[slot].userId
            history.park(timelines[slot].parts)
            users.remove(userId, at: slot)
            timelines[slot] = UserTimeline(userId: "")
            freeSlots.append(slot)
            evicted += 1
        }
        counters.usersEvicted += evicted
        return evicted
    }

    /// Inlined: called from a `mutating` method (`slot(for:)`, once per input), a call copied the
    /// whole fold (816 bytes) first, for the closure that reads `timelines`.
    @inline(__always)
    private func existingSlot(of userId: String) -> Int32? {
        // A freed slot's placeholder has an empty userId, which no input can have.
        users.slot(of: userId) { timelines[$0].userId == userId }
    }

    private mutating func markTouched(_ slot: Int32) {
        if !isTouched[Int(slot)] {
            isTouched[Int(slot)] = true
            touched.append(slot)
        }
    }

    /// Calls `body` with the timeline of each user whose state changed since the last call
    /// (first-touch order), in place: what a seal encodes for the users topic and the state changelog.
    /// A copy would retain and release every reference a timeline holds, per user and per seal.
    public mutating func forEachTouchedTimeline(_ body: (borrowing UserTimeline) -> Void) {
        for slot in touched {
            isTouched[Int(slot)] = false
            timelines.withTimeline(slot, body)
        }
        touched.removeAll(keepingCapacity: true)
    }

    /// Copies of the timelines `forEachTouchedTimeline` would visit, forgetting them as it does.
    public mutating func takeTouchedTimelines() -> [UserTimeline] {
        var taken: [UserTimeline] = []
        taken.reserveCapacity(touched.count)
        forEachTouchedTimeline { taken.append(copy $0) }
        return taken
    }

    /// Every user's timeline, in slot order.
    public func allTimelines() -> [UserTimeline] {
        var all: [UserTimeline] = []
        forEachTimeline { all.append(copy $0) }
        return all
    }

    /// Calls `body` with every user's timeline in place, in slot order (a snapshot encodes them all).
    public func forEachTimeline(_ body: (borrowing UserTimeline) -> Void) {
        for slot in 0..<Int32(timelines.count) where !timelines[slot].userId.isEmpty { timelines.withTimeline(slot, body) }
    }

    // MARK: - Restore

    /// Installs a user's persisted timeline (state restore), replacing any in memory.
    public mutating func restore(_ parts: UserTimeline.Parts, geofences: GeofenceTable) {
        let slot = slot(for: parts.userId)
        timelines[slot] = UserTimeline(parts: parts)
        schedule(slot, geofences: geofences)
    }

    /// Restores the partition's stream time (persisted beside the users' states).
    public mutating func restoreStreamTime(_ time: UnixMillis) {
        streamTime = max(streamTime, time)
    }
}
