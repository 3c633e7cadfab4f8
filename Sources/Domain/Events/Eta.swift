/// Estimated time and distance to the trip's destination.
///
/// Whole seconds and meters keep the output exact and deterministic; the codec prints `duration`
/// in minutes (Radar's unit) with two decimals.
public struct Eta: Sendable, Equatable {
    public var durationSeconds: Int32
    public var distanceMeters: Int32
    /// The 10th and 90th percentile of the remaining seconds (`trip.eta.durationLow` / `durationHigh`):
    /// an honest range around `durationSeconds`, from the residuals the ETA model has seen.
    public var durationLowSeconds: Int32
    public var durationHighSeconds: Int32

    /// Without a range given, the range is the duration itself (an arrival's 0, a decoded Radar ETA).
    public init(durationSeconds: Int32, distanceMeters: Int32, durationLowSeconds: Int32? = nil,
                durationHighSeconds: Int32? = nil)
    {
        self.durationSeconds = durationSeconds
        self.distanceMeters = distanceMeters
        self.durationLowSeconds = durationLowSeconds ?? durationSeconds
        self.durationHighSeconds = durationHighSeconds ?? durationSeconds
    }
}
