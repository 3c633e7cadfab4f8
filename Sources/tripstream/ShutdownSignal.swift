import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT/SIGTERM set a flag that the runtime polls between batches: it then commits or aborts
/// the open transaction, leaves the group and exits 0. A second signal exits at once.
enum ShutdownSignal {
    static let requested = Atomic<Bool>(false)

    static func install() {
        for number in [SIGINT, SIGTERM] {
            signal(number) { _ in
                if ShutdownSignal.requested.exchange(true, ordering: .relaxed) { _exit(130) }
            }
        }
    }

    static var isRequested: Bool { requested.load(ordering: .relaxed) }
}
