import Runtime

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT/SIGTERM/SIGHUP during a replay: its unfinished output files are removed (the previous run's
/// stay as they were, see `StagedOutputs`), then the signal ends the process as it would have.
enum StoppedRunCleanup {
    static func install() {
        UnfinishedOutputs.prepare()
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number) { received in
                UnfinishedOutputs.removeAll()
                signal(received, SIG_DFL)
                raise(received)
            }
        }
    }
}
