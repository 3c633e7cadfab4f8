/// Placing late inputs: one refold per user for everything queued since the last `settle`.
extension UserTimeline {
    /// What a settle did, for the counters.
    public struct Settlement: Sendable, Equatable {
        /// Queued inputs placed in history.
        public var placed = 0
        public var duplicates = 0
        /// Queued inputs dropped because their event time already had `maximumEqualTimes` inputs.
        public var flooded = 0
        /// Inputs folded again (the old history) and folded anew (the corrected one).
        public var refolded = 0
        /// Outcomes of the placed inputs other than `.applied`.
        public var filteredJumps = 0
        public var tooInaccurate = 0
        public var unknownTrips = 0

        public init() {}
    }

    /// Places every queued input at its event time: loads history back to the segment the oldest
    /// of them lands in, folds it without and with them, stores the corrected segments and
    /// publishes the differences.
    /// - Parameter processingTime: kept for the callers' symmetry; `late` is stamped by `PartitionFold`.
    public mutating func settle(context: FoldContext, processingTime: UnixMillis, store: any HistoryStore,
                                events: inout [Event]) -> Settlement
    {
        var settlement = Settlement()
        guard !pending.isEmpty else { return settlement }
        let settings = context.settings
        let queued = pending.stablySorted { $0.isOrdered(before: $1) }  // equal ones in arrival order
        pending = []

        // The checkpoint: the tail's start, or the start of the stored segment the oldest queued input lands in.
        var loaded: [HistorySegment] = []
        var start = tailStart
        if storedSegments > 0, tail.isEmpty || queued[0].time < tail.firstTime {
            loaded = store.segments(of: userId, from: queued[0].time)
            if let first = loaded.first { start = first.start }
        }
        var old: [TimelineInput] = []
        old.reserveCapacity(loaded.reduce(tail.count) { $0 + $1.inputs.count })
        for segment in loaded { old.append(contentsOf: segment.inputs) }
        old.append(contentsOf: tail.decoded())
        let (merged, fromQueue, duplicates, flooded) = Self.merge(old, queued)
        settlement.duplicates = duplicates
        settlement.flooded = flooded
        settlement.placed = queued.count - duplicates - flooded

        var quiet = context
        quiet.replayed = true
        quiet.nextTimerDue = .min  // refolds start from checkpoints, not the live state
        var oldEvents: [Event] = []
        var state = start
        for input in old { _ = state.fold(input, context: quiet, events: &oldEvents) }
        state.fireTimers(upTo: watermark, context: quiet, events: &oldEvents)

        // The corrected history, cut into segments again (never between inputs of equal time).
        let version = UInt32(truncatingIfNeeded: context.geofences.fingerprint)
        let previousNewest = old.last?.time ?? .min
        var newEvents: [Event] = []
        var sealed: [HistorySegment] = []
        var chunk: [TimelineInput] = []
        chunk.reserveCapacity(settings.segmentInputs + 1)
        state = start
        var chunkStart = state
        var chunkWeight = 0
        for index in merged.indices {
            let input = merged[index]
            if chunk.count >= settings.segmentInputs || chunkWeight >= Self.segmentAttachmentBytes,
                input.time > chunk[chunk.count - 1].time
            {
                sealed.append(HistorySegment(start: chunkStart, inputs: chunk, tableVersion: version))
                chunk.removeAll(keepingCapacity: true)
                chunkWeight = 0
                chunkStart = state
            }
            if let previous = chunk.last, previous.sharesAttachment(with: input) {} else {
                chunkWeight += input.attachmentWeight
            }
            // Inputs newer than anything folded before are as replayed as they would have been in order;
            // everything else here comes from placing an offline replay behind newer inputs.
            quiet.replayed = !(fromQueue[index] && input.time > previousNewest) || input.replayed
            let outcome = state.fold(input, context: quiet, events: &newEvents)
            if fromQueue[index] {
                switch outcome {
                case .applied: break
                case .filteredJump: settlement.filteredJumps += 1
                case .tooInaccurate: settlement.tooInaccurate += 1
                case .unknownTrip, .invalidTransition: settlement.unknownTrips += 1
                }
            }
            chunk.append(input)
        }
        quiet.replayed = true
        let fired = state.fireTimers(upTo: watermark, context: quiet, events: &newEvents)
        lastTickTimer = fired ?? .min
        current = state
        settlement.refolded = old.count + merged.count

        let republish = tableVersion != version || loaded.contains { $0.tableVersion != version }
        if !loaded.isEmpty || !sealed.isEmpty {
            store.replace(userId, removing: loaded.map(\.firstTime), adding: sealed)
            storedSegments += Int32(sealed.count - loaded.count)
        }
        tail = TailLog(chunk)
        tailStart = chunkStart
        tableVersion = version
        Self.publishDifferences(old: oldEvents, new: newEvents, republishUnchanged: republish, into: &events)
        if !loaded.isEmpty || !sealed.isEmpty { expireIfDue(context: context, store: store, force: true) }
        return settlement
    }


    /// Merges sorted queued inputs into sorted history, after every input ordered at or before each,
    /// dropping the ones already there (or queued twice).
    static func merge(_ history: [TimelineInput], _ queued: [TimelineInput])
        -> (merged: [TimelineInput], fromQueue: [Bool], duplicates: Int, flooded: Int)
    {
        var flooded = 0
        var merged: [TimelineInput] = []
        var fromQueue: [Bool] = []
        merged.reserveCapacity(history.count + queued.count)
        fromQueue.reserveCapacity(history.count + queued.count)
        var duplicates = 0
        var h = 0
        for input in queued {
            while h < history.count, !input.isOrdered(before: history[h]) {
                merged.append(history[h])
                fromQueue.append(false)
                h += 1
            }
            // Equal times sit together: before the insertion point in `merged`, after it in `history`.
            var seen = false
            var equal = 0
            var probe = merged.count
            while !seen, probe > 0, merged[probe - 1].time == input.time {
                seen = merged[probe - 1].isDuplicate(of: input)
                probe -= 1
                equal += 1
            }
            probe = h
            while !seen, probe < history.count, history[probe].time == input.time {
                seen = history[probe].isDuplicate(of: input)
                probe += 1
                equal += 1
            }
            if seen {
                duplicates += 1
                continue
            }
            if equal >= maximumEqualTimes {
                flooded += 1
                continue
            }
            merged.append(input)
            fromQueue.append(true)
        }
        while h < history.count {
            merged.append(history[h])
            fromQueue.append(false)
            h += 1
        }
        return (merged, fromQueue, duplicates, flooded)
    }

    /// Appends what changed between two foldings of a history, matched by `_id`.
    /// - Parameter republishUnchanged: the old folding may not be what was published (the geofence
    ///   table changed since): publish unchanged events too (identical repeats if they were).
    static func publishDifferences(old: [Event], new: [Event], republishUnchanged: Bool, into events: inout [Event]) {
        var oldByID: [EventID: Int] = [:]
        oldByID.reserveCapacity(old.count)
        for (index, event) in old.enumerated() { oldByID[event.id] = index }
        var seen = [Bool](repeating: false, count: old.count)
        for var event in new {
            if let index = oldByID[event.id] {
                seen[index] = true
                if old[index].hasSameContent(as: event) {
                    if !republishUnchanged { continue }
                } else {
                    event.revision = .corrected
                    event.replayed = true
                }
            }
            events.append(event)
        }
        for (index, event) in old.enumerated() where !seen[index] {
            var retraction = event
            retraction.revision = .retracted
            retraction.replayed = true
            events.append(retraction)
        }
    }
}
