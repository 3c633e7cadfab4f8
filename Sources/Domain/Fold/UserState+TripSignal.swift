/// Signal lost during a trip (TripStream's, beyond Radar): `user.trip_signal_lost` when a trip on its
/// way (started or approaching, not yet arrived) goes `FoldSettings.tripSignalLostAfter` without a
/// fix, on the partition's stream time like dwell and expiry; `user.trip_signal_restored` on the
/// next fix, with the gap as `duration`. After arrival a quiet device is the normal end of a ride
/// (the passenger is out, nobody completes the trip): the trip's expiry deals with it.
extension UserState {
    /// When the trip's signal-lost timer is due; nil without a trip on its way, once it fired, or
    /// when disabled.
    func tripSignalLostDue(settings: FoldSettings) -> UnixMillis? {
        tripBoxForReading?.signalLostDue(lastFixAt: locationAt, signalLostAfter: settings.tripSignalLostAfter)
    }

    /// Fires the signal-lost timer if it is the one `due`.
    /// - Returns: whether it fired.
    mutating func fireTripSignalLost(due: UnixMillis, context: FoldContext, events: inout [Event]) -> Bool {
        guard tripSignalLostDue(settings: context.settings) == due, let box = uniqueTripBox() else { return false }
        let since = max(locationAt, box.value.snapshot.startedAt)
        box.value.signalLostSince = since
        events.append(tripEvent(.tripSignalLost, at: due, context: context,
                                durationSeconds: Int32(clamping: (due - since) / 1000)) { $0.combine(since) })
        return true
    }

    /// After a fix at `time` (already the state's location): `user.trip_signal_restored` if the
    /// trip's signal was lost.
    mutating func restoreTripSignal(at time: UnixMillis, context: FoldContext, events: inout [Event]) {
        guard let since = tripBoxForReading?.value.signalLostSince, let box = uniqueTripBox() else { return }
        box.value.signalLostSince = nil
        events.append(tripEvent(.tripSignalRestored, at: time, context: context,
                                durationSeconds: Int32(clamping: (time - since) / 1000)) { $0.combine(since) })
    }
}

extension TripBox {
    /// `UserState.tripSignalLostDue`, read from the box alone: per fix, on a state read in place.
    func signalLostDue(lastFixAt: UnixMillis, signalLostAfter: UnixMillis) -> UnixMillis? {
        guard signalLostAfter > 0, value.snapshot.status.isOnTheWay, value.signalLostSince == nil else { return nil }
        return max(lastFixAt, value.snapshot.startedAt) + signalLostAfter
    }
}
