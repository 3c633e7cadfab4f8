import Domain
import Runtime

/// Simulated time: it moves only when the simulation moves it, or when a pause between retries asks
/// it to. Every instance and the broker read it, so a seed's run never depends on the machine's clock.
package final class SimulatedClock: Clock, @unchecked Sendable {
    // Unchecked: a simulation runs on one thread.
    private var microseconds: Int64 = 0
    private let start: UnixMillis

    /// - Parameter start: the wall clock's reading at the start (ms since 1970).
    package init(start: UnixMillis) { self.start = start }

    package func now() -> UnixMillis { start + microseconds / 1000 }
    package func monotonic() -> Double { Double(microseconds) / 1e6 }
    package func sleep(seconds: Double) { advance(seconds: seconds) }

    package func advance(seconds: Double) { microseconds += Int64(max(0, seconds) * 1e6) }
    package func advance(microseconds: Int64) { self.microseconds += max(0, microseconds) }
}
