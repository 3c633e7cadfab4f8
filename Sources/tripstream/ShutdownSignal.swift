import CommandSupport
import Synchronization
import enum Runtime.WallClock

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT/SIGTERM set a flag that the runtime polls between batches: it then commits or aborts
/// the open transaction, leaves the group and exits 0. A second signal exits at once. With a
/// deadline, a watchdog ends the process when the graceful path takes longer (brokers unreachable:
/// librdkafka calls wait out their own timeouts), leaving the open transaction to the broker's
/// transaction timeout.
enum ShutdownSignal {
    static let requested = Atomic<Bool>(false)

    /// - Parameter deadline: seconds from the signal to a forced exit (status 2); nil: none.
    static func install(deadline: Double? = nil) {
        for number in [SIGINT, SIGTERM] {
            signal(number) { _ in
                if ShutdownSignal.requested.exchange(true, ordering: .relaxed) { _exit(130) }
            }
        }
        if let deadline { startWatchdog(deadline: deadline) }
    }

    static var isRequested: Bool { requested.load(ordering: .relaxed) }

    private static func startWatchdog(deadline: Double) {
        let context = UnsafeMutablePointer<Double>.allocate(capacity: 1)
        context.pointee = deadline
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { argument in
            let pointer = argument!.assumingMemoryBound(to: Double.self)
            let deadline = pointer.pointee
            pointer.deallocate()
            while !ShutdownSignal.isRequested { usleep(50_000) }
            let signalled = WallClock.monotonic()
            while WallClock.monotonic() - signalled < deadline { usleep(50_000) }
            let seconds = deadline < 10 ? String(format1: deadline) : String(Int(deadline))
            Terminal.error("shutdown did not finish within \(seconds) s (--shutdown-timeout): exiting with status 2; the open transaction is left to the broker's transaction timeout")
            _exit(2)
        }, context)
        if started == 0 { pthread_detach(thread) } else { context.deallocate() }
    }
}
