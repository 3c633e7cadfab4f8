/// Geofence entry, exit and dwell: accuracy-aware, with hysteresis at the edge.
extension UserState {
    mutating func updateGeofences(
        at position: Coordinate, accuracy: Double, time: UnixMillis, context: FoldContext, events: inout [Event]
    ) {
        let settings = context.settings
        var index = 0
        while index < presences.count {
            let presence = presences[index]
            // The hint is not written back: presences are shared with the checkpoints, and a write
            // would copy the array. A stale hint (after a restore) costs one lookup by id.
            var hint = presence.slotHint
            guard let geofence = context.geofences.geofence(presence.geofenceID, hint: &hint), geofence.enabled else {
                presences.remove(at: index)  // deleted or disabled: the visit ends without an event
                continue
            }
            let distance = geofence.geometry.signedDistance(to: position)
            if Self.leavesArea(
                signedDistance: distance, accuracy: accuracy, radius: geofence.geometry.characteristicRadius,
                settings: settings)
            {
                var event = makeEvent(.exitedGeofence, at: time, context: context) {
                    $0.combine(presence.geofenceID.rawValue)
                    $0.combine(UInt64(presence.visitOrdinal))
                }
                event.geofence = geofence
                event.durationSeconds = Int32(clamping: (time - presence.enteredAt) / 1000)
                events.append(event)
                presences.remove(at: index)
                continue
            }
            index += 1
        }

        var entered: [(id: GeofenceID, slot: Int32)] = []
        let presences = self.presences
        // Only geofences holding the fix can be entered (`entersArea` needs a distance ≤ 0).
        context.geofences.forEachContaining(position) { id, slot, distance, radius in
            guard !presences.contains(where: { $0.geofenceID == id }) else { return }
            if Self.entersArea(signedDistance: distance, accuracy: accuracy, radius: radius, settings: settings) {
                entered.append((id, slot))
            }
        }
        guard !entered.isEmpty else { return }
        entered.sort { $0.id < $1.id }  // the index's order depends on upsert history; ids do not
        for (_, slot) in entered {
            guard let geofence = context.geofences.geofence(atSlot: slot) else { continue }
            visitCount &+= 1
            let dwellDue = geofence.dwellThreshold.map { time + UnixMillis($0) * UnixMillis.millisPerMinute } ?? .max
            let presence = Presence(geofenceID: geofence.id, enteredAt: time, dwellDue: dwellDue,
                                    visitOrdinal: visitCount, slotHint: slot)
            let slot = self.presences.firstIndex { $0.geofenceID > geofence.id } ?? self.presences.count
            self.presences.insert(presence, at: slot)
            var event = makeEvent(.enteredGeofence, at: time, context: context) {
                $0.combine(geofence.id.rawValue)
                $0.combine(UInt64(presence.visitOrdinal))
            }
            event.geofence = geofence
            events.append(event)
        }
    }

    /// The earliest timer of this user: a dwell threshold or a trip's expiry.
    public func nextTimerDue(geofences: GeofenceTable, settings: FoldSettings) -> UnixMillis? {
        var due = UnixMillis.max
        for presence in presences where presence.dwellDue < due { due = presence.dwellDue }
        if hasActiveTrip, let startedAt = tripStartedAt { due = min(due, startedAt + settings.tripExpiry) }
        return due == .max ? nil : due
    }

    /// Fires every timer due at or before `time`, earliest first; dwells before an expiry due at
    /// the same instant, dwells in geofence-id order.
    /// - Returns: the due time of the last timer fired, nil if none was due.
    @discardableResult
    public mutating func fireTimers(upTo time: UnixMillis, context: FoldContext, events: inout [Event]) -> UnixMillis? {
        var lastFired: UnixMillis?
        while let due = nextTimerDue(geofences: context.geofences, settings: context.settings), due <= time {
            if let index = presences.firstIndex(where: { $0.dwellDue == due }) {
                presences[index].dwellDue = .max
                let presence = presences[index]
                var event = makeEvent(.dwelledInGeofence, at: due, context: context) {
                    $0.combine(presence.geofenceID.rawValue)
                    $0.combine(UInt64(presence.visitOrdinal))
                }
                var hint = presence.slotHint
                event.geofence = context.geofences.geofence(presence.geofenceID, hint: &hint)
                events.append(event)
            } else {
                stopTrip(as: .expired, at: due, context: context, events: &events)
            }
            lastFired = due
        }
        return lastFired
    }
}
