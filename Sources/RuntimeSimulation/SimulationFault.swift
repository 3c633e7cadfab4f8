import BrokerSimulation
import KafkaIO

/// A fault the simulation injects, as its log names it.
struct SimulationFault {
    enum Kind: String, CaseIterable {
        /// A broker call fails once or a few times: fatal, abortable or retriable, on any operation.
        case brokerError
        /// A newer producer with an instance's transactional id fences it (or its transaction times out).
        case fence
        /// An orderly revocation of some partitions, given back later.
        case revoke
        /// Partitions lost without a hand-over, given back later.
        case lose
        /// An instance freezes past its session timeout and resumes as a zombie.
        case sessionExpiry
        /// An instance is killed (between any two calls, in the middle of a commit included) and restarts
        /// later from its local state or, its disk lost, from the changelog alone.
        case crash
        /// Scale out: an instance not running starts.
        case join
        /// Scale in: an instance stops gracefully.
        case leave
        /// An instance's producer calls take long: its commits and flushes wait while the fold goes on.
        case slowProducer
        /// The clock jumps forward.
        case clockJump
    }

    /// The errors a broker call may fail with, one of each kind.
    enum ErrorKind: CaseIterable {
        case fatal, abortable, retriable

        var error: KafkaError {
            switch self {
            case .fatal:
                KafkaError(code: .outOfOrderSequenceNumber, message: "injected: fatal", isFatal: true)
            case .abortable:
                KafkaError(code: .unknown, message: "injected: abortable", isTxnRequiresAbort: true)
            case .retriable:
                KafkaError(code: .coordinatorNotAvailable, message: "injected: retriable", isRetriable: true)
            }
        }
    }
}
