/// Geofence entry, exit and dwell: accuracy-aware, with hysteresis at the edge.
extension UserState {
    /// A geofence holding the fix, as `GeofenceTable.forEachContaining` reports it.
    /// 32 bytes (the narrow fields last): `holdingCapacity` of them fit the stack.
    private struct Holding {
        var id: GeofenceID
        var signedDistance: Double
        var radius: Double
        var slot: Int32
        var hasFoldOptions: Bool
        /// A presence in this geofence goes on (set while the presences are walked).
        var isPresent = false
    }

    /// Geofences holding one fix that are kept on the stack: 1 KiB, the most
    /// `withUnsafeTemporaryAllocation` places there without asking the system (above it, a heap
    /// allocation on every fix). A pile-up of more goes to an array.
    private static let holdingCapacity = 32

    mutating func updateGeofences(
        at position: Coordinate, accuracy: Double, time: UnixMillis, context: FoldContext, events: inout [Event]
    ) {
        // One spatial lookup per fix: the geofences holding it, with their signed distances (the
        // exact values `signedDistance` gives). A presence among them is tested from that, without
        // a lookup by id, a touch of the geofence object and a cosine of its own; the entries come
        // from the same list.
        withUnsafeTemporaryAllocation(of: Holding.self, capacity: Self.holdingCapacity) { buffer in
            var count = 0
            // A pile-up beyond the buffer continues in an array, from the same lookup.
            var pileUp: [Holding] = []
            context.geofences.forEachContaining(position) { id, slot, distance, radius, hasFoldOptions in
                let held = Holding(id: id, signedDistance: distance, radius: radius, slot: slot,
                                   hasFoldOptions: hasFoldOptions)
                if count < buffer.count {
                    buffer.initializeElement(at: count, to: held)
                } else {
                    if pileUp.isEmpty { pileUp.append(contentsOf: buffer) }
                    pileUp.append(held)
                }
                count += 1
            }
            guard pileUp.isEmpty else {
                pileUp.withUnsafeMutableBufferPointer { holding in
                    updateGeofences(at: position, accuracy: accuracy, time: time, context: context, holding: holding,
                                    events: &events)
                }
                return
            }
            updateGeofences(at: position, accuracy: accuracy, time: time, context: context,
                            holding: UnsafeMutableBufferPointer(rebasing: buffer[0..<count]), events: &events)
        }
    }

    /// - Parameter holding: the geofences holding `position`, all of them (sorted here by id).
    private mutating func updateGeofences(
        at position: Coordinate, accuracy: Double, time: UnixMillis, context: FoldContext,
        holding: UnsafeMutableBufferPointer<Holding>, events: inout [Event]
    ) {
        let settings = context.settings
        // By id, as the presences are kept: each presence finds its geofence by walking both lists
        // once. In a dense city a fix lies in tens of geofences and a user in as many: a scan per
        // presence was their product per fix, and a bisection per presence a few mispredicted
        // branches each.
        Self.sortByID(holding)
        // What the loop reads of the presences the fix is outside of, together before it reads them one by
        // one: the index's entry, and the geofence object an exit reports (about one per fix in a dense city).
        if presences.count > 1 {
            var cursor = HeldCursor()
            for presence in presences where cursor.index(of: presence.geofenceID, in: holding) == nil {
                context.geofences.prefetchShape(atSlot: presence.slotHint)
                context.geofences.prefetchGeofence(atSlot: presence.slotHint)
            }
        }
        var cursor = HeldCursor()
        var index = 0
        while index < presences.count {
            let presence = presences[index]
            if let heldAt = cursor.index(of: presence.geofenceID, in: holding) {
                let held = holding[heldAt]
                // Enabled and in the table (the lookup reports nothing else): only the distance and,
                // for a geofence with a scheduled end, that end decide.
                if held.hasFoldOptions || presence.endsAt != .max,
                    let geofence = context.geofences.geofence(atSlot: held.slot),
                    endVisitIfScheduled(presenceAt: index, geofence, at: time, context: context, events: &events)
                {
                    continue
                }
                if Self.leavesArea(signedDistance: held.signedDistance, accuracy: accuracy, radius: held.radius,
                                   settings: settings),
                    let geofence = context.geofences.geofence(atSlot: held.slot)
                {
                    exit(presenceAt: index, geofence, at: time, margin: held.signedDistance, context: context,
                         events: &events)
                    continue
                }
                holding[heldAt].isPresent = true
                index += 1
                continue
            }
            // Outside the shape, perhaps not beyond the hysteresis buffer: from the index's entry at the
            // hint when that tells all (no scheduled end, no fold options), without the geofence object.
            if presence.endsAt == .max,
                let shape = context.geofences.signedDistance(slot: presence.slotHint, id: presence.geofenceID,
                                                             to: position),
                !Self.leavesArea(signedDistance: shape.distance, accuracy: accuracy, radius: shape.radius,
                                 settings: settings)
            {
                index += 1
                continue
            }
            // The hint is not written back: presences are shared with the checkpoints, and a write
            // would copy the array. A stale hint (after a restore) costs one lookup by id.
            var hint = presence.slotHint
            guard let geofence = context.geofences.geofence(presence.geofenceID, hint: &hint) else {
                endVisitOfDeletedGeofence(presenceAt: index, at: time, context: context, events: &events)
                continue
            }
            guard geofence.enabled else {
                exit(presenceAt: index, geofence, at: time, reason: .geofenceDisabled, context: context,
                     events: &events)
                continue
            }
            if endVisitIfScheduled(presenceAt: index, geofence, at: time, context: context, events: &events) {
                continue
            }
            let distance = geofence.geometry.signedDistance(to: position)
            if Self.leavesArea(
                signedDistance: distance, accuracy: accuracy, radius: geofence.geometry.characteristicRadius,
                settings: settings)
            {
                exit(presenceAt: index, geofence, at: time, margin: distance, context: context, events: &events)
                continue
            }
            index += 1
        }

        // Only geofences holding the fix can be entered (`entersArea` needs a distance ≤ 0), and only
        // those without a presence that went on above.
        func mayEnter(_ held: Holding) -> Bool {
            !held.isPresent
                && Self.entersArea(signedDistance: held.signedDistance, accuracy: accuracy, radius: held.radius,
                                   settings: settings)
        }
        guard !holding.isEmpty else { return }
        // On the stack (up to 1 KiB): an array here is a heap allocation on every fix that enters
        // something.
        ScratchBuffer.with(Entry.self, count: holding.count) { buffer in
            var count = 0
            for held in holding where mayEnter(held) {
                buffer.initializeElement(at: count, to: Entry(id: held.id, slot: held.slot,
                                                              signedDistance: held.signedDistance))
                count += 1
            }
            enter(UnsafeBufferPointer(rebasing: buffer[0..<count]), at: time, context: context,
                  events: &events)
        }
    }

    /// Sorts `holding` by geofence id in place. Runs of `sortRun` by insertion, as a fix lies in a few
    /// to a few tens of geofences; longer lists (a fix in 70 geofences of the city at 100,000) then
    /// merge their runs through a scratch buffer. The standard library's sort, through its closure,
    /// was 3% of the dense city's fold at 10,000 geofences and 7–10% at 100,000. Ids are distinct
    /// (a geofence is listed once per lookup), so the order is total.
    private static func sortByID(_ holding: UnsafeMutableBufferPointer<Holding>) {
        let count = holding.count
        guard count > 1 else { return }
        // Mostly sorted already: the index lists a cell's geofences in id order, and only a city-sized
        // shape (listed apart) comes after them.
        if (1..<count).allSatisfy({ holding[$0 - 1].id < holding[$0].id }) { return }
        var start = 0
        while start < count {
            insertionSort(UnsafeMutableBufferPointer(rebasing: holding[start..<min(start + sortRun, count)]))
            start += sortRun
        }
        guard count > sortRun else { return }
        ScratchBuffer.with(Holding.self, count: count) { scratch in
            var source = holding, target = scratch
            var width = sortRun
            while width < count {
                var low = 0
                while low < count {
                    let middle = min(low + width, count), high = min(low + 2 * width, count)
                    var left = low, right = middle, out = low
                    while left < middle, right < high {
                        if source[right].id < source[left].id {
                            target.initializeElement(at: out, to: source[right])
                            right += 1
                        } else {
                            target.initializeElement(at: out, to: source[left])
                            left += 1
                        }
                        out += 1
                    }
                    while left < middle { target.initializeElement(at: out, to: source[left]); left += 1; out += 1 }
                    while right < high { target.initializeElement(at: out, to: source[right]); right += 1; out += 1 }
                    low = high
                }
                swap(&source, &target)
                width *= 2
            }
            if source.baseAddress != holding.baseAddress {
                holding.baseAddress!.update(from: source.baseAddress!, count: count)
            }
        }
    }

    /// Finds geofences in the holding list (sorted by id) for ids asked in ascending order, as the
    /// presences are kept, by walking it forward once. An id below the one asked before (presences
    /// out of order, which no path writes) is found by bisection instead, so the answer never
    /// depends on that order.
    private struct HeldCursor {
        private var next = 0
        private var lastAsked: GeofenceID?

        /// The index in `holding` of geofence `id`, nil if the fix is not in it.
        mutating func index(of id: GeofenceID, in holding: UnsafeMutableBufferPointer<Holding>) -> Int? {
            if let lastAsked, id < lastAsked { return Self.bisect(id, in: holding) }
            lastAsked = id
            while next < holding.count, holding[next].id < id { next += 1 }
            return next < holding.count && holding[next].id == id ? next : nil
        }

        static func bisect(_ id: GeofenceID, in holding: UnsafeMutableBufferPointer<Holding>) -> Int? {
            var low = 0, high = holding.count
            while low < high {
                let middle = (low + high) / 2
                if holding[middle].id < id { low = middle + 1 } else { high = middle }
            }
            return low < holding.count && holding[low].id == id ? low : nil
        }
    }

    /// Runs of the holding list sorted by insertion before they are merged.
    private static let sortRun = 32

    private static func insertionSort(_ holding: UnsafeMutableBufferPointer<Holding>) {
        guard holding.count > 1 else { return }
        for next in 1..<holding.count {
            let moved = holding[next]
            var at = next
            while at > 0, moved.id < holding[at - 1].id {
                holding[at] = holding[at - 1]
                at -= 1
            }
            holding[at] = moved
        }
    }

    /// A geofence the fix enters, if its options allow.
    private struct Entry {
        var id: GeofenceID
        var slot: Int32
        var signedDistance: Double
    }

    /// Enters the geofences `entered` that allow it, in geofence-id order (the order of `entered`: the
    /// holding list is sorted by id; the index's own order depends on upsert history, ids do not).
    private mutating func enter(_ entered: UnsafeBufferPointer<Entry>, at time: UnixMillis,
                                context: FoldContext, events: inout [Event])
    {
        guard !entered.isEmpty else { return }
        // Their objects' misses together first, rather than one after another in the loop below.
        if entered.count > 1 { for entry in entered { context.geofences.prefetchGeofence(atSlot: entry.slot) } }
        ScratchBuffer.with(Presence.self, count: entered.count) { added in
            var count = 0
            for entry in entered {
                guard let geofence = context.geofences.geofence(atSlot: entry.slot) else { continue }
                if geofence.hasFoldOptions {
                    if time >= geofence.scheduledEnd { continue }  // behaves as disabled or deleted from then on
                    if geofence.stopDetection, !isStopped(at: time, settings: context.settings) { continue }
                }
                let ordinal = ordinals.next(.visits(of: geofence.id), at: time)
                let dwellDue = geofence.dwellThreshold.map { time + UnixMillis($0) * UnixMillis.millisPerMinute } ?? .max
                let presence = Presence(geofenceID: geofence.id, enteredAt: time, dwellDue: dwellDue,
                                        visitOrdinal: ordinal.count, endsAt: geofence.scheduledEnd, slotHint: entry.slot)
                added.initializeElement(at: count, to: presence)
                count += 1
                // Built whole inside `append`: a local event mutated and then appended is copied.
                events.append(makeEvent(.enteredGeofence, at: time, context: context, geofence: geofence,
                                        confidence: EventConfidence(margin: -entry.signedDistance, accuracy: accuracy)) {
                    presence.combineVisit(into: &$0)
                })
            }
            insertPresences(UnsafeBufferPointer(rebasing: added[0..<count]))
            _ = added[0..<count].deinitialize()
        }
    }

    /// Adds the presences `added` (in geofence-id order, none of them present yet) where they belong
    /// in `presences` (kept in geofence-id order): in one pass, where an insert each moved every later
    /// presence (a user in 70 geofences of a dense city entering 17 at once: a fifth of its fold).
    private mutating func insertPresences(_ added: UnsafeBufferPointer<Presence>) {
        guard added.count > 1 else {
            if let presence = added.first {
                presences.insert(presence, at: presences.firstIndex { $0.geofenceID > presence.geofenceID } ?? presences.count)
            }
            return
        }
        var merged: [Presence] = []
        merged.reserveCapacity(presences.count + added.count)
        var next = 0
        for presence in presences {
            while next < added.count, added[next].geofenceID < presence.geofenceID {
                merged.append(added[next])
                next += 1
            }
            merged.append(presence)
        }
        merged.append(contentsOf: added[next...])
        presences = merged
    }

    /// Ends the visit of `presences[index]` with a `user.exited_geofence` event at `time`: the user
    /// left (`margin` meters outside the edge), or the geofence went away (`reason`).
    mutating func exit(presenceAt index: Int, _ geofence: Geofence, at time: UnixMillis, margin: Double = 0,
                       reason: ExitReason? = nil, context: FoldContext, events: inout [Event])
    {
        let presence = presences[index]
        events.append(makeEvent(
            .exitedGeofence, at: time, context: context, geofence: geofence,
            confidence: reason == nil ? EventConfidence(margin: margin, accuracy: accuracy) : .high,
            durationSeconds: Int32(clamping: (time - presence.enteredAt) / 1000), exitReason: reason
        ) {
            presence.combineVisit(into: &$0)
        })
        presences.remove(at: index)
    }

    /// The earliest timer of this user: a dwell threshold, a geofence's scheduled end or a trip's expiry.
    public func nextTimerDue(geofences: GeofenceTable, settings: FoldSettings) -> UnixMillis? {
        nextTimerDue(signalLostAfter: settings.tripSignalLostAfter)
    }

    /// The same, given the one setting it reads.
    @inline(__always)  // called per fix on a timeline in place: not inlined, the state is copied first
    func nextTimerDue(signalLostAfter: UnixMillis) -> UnixMillis? {
        var due = UnixMillis.max
        for presence in presences { due = min(due, presence.dwellDue, presence.endsAt) }
        if let box = tripBoxForReading {
            due = min(due, box.nextTimerDue(lastFixAt: locationAt, signalLostAfter: signalLostAfter))
        }
        return due == .max ? nil : due
    }

    /// Fires every timer due at or before `time`, earliest first; dwells before geofence ends before
    /// an expiry due at the same instant, each in geofence-id order.
    /// - Returns: the due time of the last timer fired, nil if none was due.
    @discardableResult
    public mutating func fireTimers(upTo time: UnixMillis, context: FoldContext, events: inout [Event]) -> UnixMillis? {
        var lastFired: UnixMillis?
        while let due = nextTimerDue(signalLostAfter: context.settings.tripSignalLostAfter), due <= time {
            if let index = presences.firstIndex(where: { $0.dwellDue == due }) {
                presences[index].dwellDue = .max
                let presence = presences[index]
                var hint = presence.slotHint
                guard let geofence = context.geofences.geofence(presence.geofenceID, hint: &hint), geofence.enabled
                else {
                    // Gone since the last fix: the visit ends here instead of dwelling.
                    endVisitOfMissingGeofence(presenceAt: index, at: due, context: context, events: &events)
                    lastFired = due
                    continue
                }
                events.append(makeEvent(.dwelledInGeofence, at: due, context: context, geofence: geofence) {
                    presence.combineVisit(into: &$0)
                })
            } else if let index = presences.firstIndex(where: { $0.endsAt == due }) {
                fireScheduledEnd(presenceAt: index, due: due, context: context, events: &events)
            } else if !fireLegStop(due: due, context: context, events: &events),
                !fireTripSignalLost(due: due, context: context, events: &events)
            {
                stopTrip(as: .expired, at: due, context: context, events: &events)
            }
            lastFired = due
        }
        return lastFired
    }
}
