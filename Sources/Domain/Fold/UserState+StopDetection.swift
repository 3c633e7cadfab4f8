/// Radar's stop detection: a geofence with `stopDetection` is entered only once the user has stopped
/// inside, every fix slower than `FoldSettings.stopSpeed` for `stopDuration`. Cuts drive-by entries.
extension UserState {
    /// Takes one fix's speed: its own `speed`, or the one derived from the previous fix (the distance
    /// beyond the fix's accuracy over the time between); NaN when neither is known (the first fix),
    /// which changes nothing.
    mutating func trackStop(speed: Float, at time: UnixMillis, settings: FoldSettings) {
        guard !speed.isNaN else { return }
        if Double(speed) < settings.stopSpeed {
            if stoppedSince == .max { stoppedSince = time }
        } else if stoppedSince != .max {
            stoppedSince = .max
        }
    }

    /// Whether the user has been stopped for `stopDuration` at `time`.
    func isStopped(at time: UnixMillis, settings: FoldSettings) -> Bool {
        stoppedSince != .max && time - stoppedSince >= settings.stopDuration
    }
}
