import Domain

/// A fleet whose records come one time step after another, for as long as a caller wants them: the
/// simulated city (`FleetSimulator`) or recorded rides played again (`RecordedFleet`).
public protocol LiveFleet: Sendable {
    /// Every geofence, as the admin tools publish them before the first fix.
    var geofenceRecords: [SimulatedRecord] { get }
    /// Event time of the first step.
    var startTime: UnixMillis { get }
    /// Event time of the next step.
    var currentTime: UnixMillis { get }
    /// Event time one step covers.
    var stepMilliseconds: Int64 { get }
    /// Appends the next step's records (fixes, trip commands, late replays) in arrival order; false when
    /// the fleet is done.
    mutating func nextStep(into records: inout [SimulatedRecord]) -> Bool
}
