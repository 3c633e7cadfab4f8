/// Estimated time and distance to the trip's destination.
///
/// Whole seconds and meters keep the output exact and deterministic; the codec prints `duration`
/// in minutes (Radar's unit) with two decimals.
public struct Eta: Sendable, Equatable {
    public var durationSeconds: Int32
    public var distanceMeters: Int32

    public init(durationSeconds: Int32, distanceMeters: Int32) {
        self.durationSeconds = durationSeconds
        self.distanceMeters = distanceMeters
    }
}
