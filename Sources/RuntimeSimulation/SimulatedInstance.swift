import Runtime

/// One `tripstream run` process of a simulation: its executor while it runs, and what the simulation
/// does to it (freezes, slow producer calls, restarts, its session and transaction timing out).
final class SimulatedInstance {
    enum Status: Equatable {
        case down
        case running
        /// Asked to stop gracefully: it folds what was fetched, commits, writes snapshots and leaves.
        case stopping
    }

    let id: String
    var executor: RuntimeExecutor?
    var status = Status.down
    /// Whether the stop was handed to the executor yet.
    var stopHanded = false
    /// A zombie: neither its driver nor its producer runs before then.
    var frozenUntil = 0.0
    /// Its producer's calls wait until then.
    var producerSlowUntil = 0.0
    /// It crashes right before its producer's next n-th call.
    var crashBeforeCall: Int?
    /// Down: when it starts again, and whether its local state is gone by then.
    var restartAt: Double?
    var wipeOnRestart = false
    /// Gone without leaving the group: when its session expires, and when its open transaction times out.
    var sessionExpiresAt: Double?
    var transactionTimesOutAt: Double?

    init(id: String) { self.id = id }

    var isRunning: Bool { status != .down }

    /// Whether its driver or producer may run at `now`.
    func isAwake(at now: Double) -> Bool { isRunning && now >= frozenUntil }
}
