import Runtime

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT/SIGTERM/SIGHUP during a replay: its unfinished output files are removed at once (the previous
/// run's stay as they were, see `StagedOutputs`), then a thread the handler wakes removes its scratch
/// (history stores, spools), and the signal ends the process as it would have.
enum StoppedRunCleanup {
    nonisolated(unsafe) private static var received = sem_t()
    nonisolated(unsafe) private static var signalNumber: Int32 = 0

    static func install() {
        UnfinishedOutputs.prepare()
        sem_init(&received, 0, 0)
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { _ in
            while sem_wait(&StoppedRunCleanup.received) != 0 {}
            UnfinishedOutputs.removeScratch()
            signal(StoppedRunCleanup.signalNumber, SIG_DFL)
            raise(StoppedRunCleanup.signalNumber)
            return nil
        }, nil)
        if started == 0 { pthread_detach(thread) }
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number) { number in
                UnfinishedOutputs.removeAll()  // async-signal-safe: unlink(2) of a fixed table
                StoppedRunCleanup.signalNumber = number
                sem_post(&StoppedRunCleanup.received)
            }
        }
    }
}
