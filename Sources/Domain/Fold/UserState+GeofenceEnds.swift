/// Visits that end because their geofence went away: deleted, disabled, or past its `disableAfter` /
/// `deleteAfter`. The table has no event time of its own, so a change made on the geofence topic
/// ends the visit at the user's next usable fix (or due timer) folded after it, dated there; a
/// scheduled end is a stream-time timer, dated at its instant, the same in `run` and `replay`.
extension UserState {
    /// Ends the visit if `geofence` reached its scheduled end by `time`; otherwise keeps the
    /// presence's timer in step with the geofence's current `scheduledEnd` (an upsert may have moved it).
    /// - Returns: whether the visit ended.
    mutating func endVisitIfScheduled(presenceAt index: Int, _ geofence: Geofence, at time: UnixMillis,
                                      context: FoldContext, events: inout [Event]) -> Bool
    {
        if time >= geofence.scheduledEnd {
            exit(presenceAt: index, geofence, at: time, reason: geofence.scheduledEndReason, context: context,
                 events: &events)
            return true
        }
        if presences[index].endsAt != geofence.scheduledEnd { presences[index].endsAt = geofence.scheduledEnd }
        return false
    }

    /// Ends the visit to a geofence no longer in the table, naming it as it was when deleted. A
    /// geofence the table never saw deleted (its tombstone compacted away before a restart) cannot
    /// be named: that visit ends without an event.
    mutating func endVisitOfDeletedGeofence(presenceAt index: Int, at time: UnixMillis, context: FoldContext,
                                            events: inout [Event])
    {
        if let geofence = context.geofences.deleted(presences[index].geofenceID) {
            exit(presenceAt: index, geofence, at: time, reason: .geofenceDeleted, context: context, events: &events)
        } else {
            presences.remove(at: index)
        }
    }

    /// Ends the visit to a geofence deleted or disabled since the last fix, at a timer due at `time`.
    mutating func endVisitOfMissingGeofence(presenceAt index: Int, at time: UnixMillis, context: FoldContext,
                                            events: inout [Event])
    {
        var hint = presences[index].slotHint
        if let geofence = context.geofences.geofence(presences[index].geofenceID, hint: &hint) {
            exit(presenceAt: index, geofence, at: time, reason: .geofenceDisabled, context: context, events: &events)
        } else {
            endVisitOfDeletedGeofence(presenceAt: index, at: time, context: context, events: &events)
        }
    }

    /// The timer of `presences[index]`'s scheduled end, due at `due`: the visit ends then, unless the
    /// geofence's end moved later since (the timer moves with it).
    mutating func fireScheduledEnd(presenceAt index: Int, due: UnixMillis, context: FoldContext,
                                   events: inout [Event])
    {
        var hint = presences[index].slotHint
        guard let geofence = context.geofences.geofence(presences[index].geofenceID, hint: &hint), geofence.enabled
        else {
            endVisitOfMissingGeofence(presenceAt: index, at: due, context: context, events: &events)
            return
        }
        if geofence.scheduledEnd > due {
            presences[index].endsAt = geofence.scheduledEnd
        } else {
            exit(presenceAt: index, geofence, at: due, reason: geofence.scheduledEndReason, context: context,
                 events: &events)
        }
    }
}
