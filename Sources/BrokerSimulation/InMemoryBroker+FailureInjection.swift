import KafkaIO
import Runtime

extension KafkaError.Code {
    /// Kafka's `ILLEGAL_GENERATION` (22): offsets sent with a generation that is no longer the group's.
    package static let illegalGeneration = KafkaError.Code(rawValue: 22)
}

extension InMemoryBroker {
    /// The client calls failures and hooks can be attached to.
    package enum Operation: Hashable, Sendable, CaseIterable {
        case initTransactions, begin, produce, flush, sendOffsets, commit, abort
        /// `InputLog.poll` (the group consumer).
        case poll
        /// `PartitionReader.poll`.
        case readerPoll
        /// `PartitionReader.endOffsets` (the runtime asks where an input stream ends).
        case endOffsets
    }

    /// The next `times` calls of `operation` (from any client) throw `error` instead of acting.
    ///
    /// How the sink treats an injected error, as librdkafka would: a fatal one makes the sink
    /// unusable (every later call throws it); one with `isTxnRequiresAbort` leaves the open
    /// transaction abortable only (produce, sendOffsets and commit throw it until `abort`); any
    /// other (retriable) leaves nothing changed, so the call can be repeated — a retriable commit
    /// error means "commit again". On `.flush` the error is not thrown but reported: every queued
    /// record fails (`DeliveryReport.failed`, `firstError` = its code) and the transaction becomes
    /// abortable; except `.timedOut`, which is thrown with the records still queued.
    package func failNext(_ operation: Operation, with error: KafkaError, times: Int = 1) {
        withState { $0.failures[operation, default: []] += Array(repeating: error, count: max(0, times)) }
    }

    /// Forgets the failures still pending for `operation`.
    package func clearFailures(_ operation: Operation) {
        withState { $0.failures[operation] = nil }
    }

    /// The next `times` calls of each of `operations` throw a retriable `.coordinatorNotAvailable`
    /// (the transaction coordinator is moving): nothing happens, the call may be repeated.
    package func coordinatorUnavailable(for operations: Set<Operation>, times: Int = 1) {
        for operation in operations.sorted(by: { "\($0)" < "\($1)" }) {
            failNext(operation, with: KafkaError(code: .coordinatorNotAvailable,
                                                 message: "transaction coordinator not available (injected)",
                                                 isRetriable: true),
                     times: times)
        }
    }

    /// Runs `hook` on the calling thread when `operation` is next called, before the call acts
    /// (and before any injected failure). The lock is not held, so the hook may call the broker,
    /// e.g. `revoke` during a commit. One hook per call; several queue up in order.
    ///
    /// As on Kafka, a rebalance during `commit` does not refuse the offsets already sent (they were
    /// checked at `sendOffsets`); hook `.sendOffsets` to have them refused.
    package func onNext(_ operation: Operation, perform hook: @escaping @Sendable () -> Void) {
        withState { $0.hooks[operation, default: []].append(hook) }
    }

    /// Runs `hook` at the `call`th call of `operation` from now (1: the next), as `onNext` does.
    package func onCall(_ call: Int, of operation: Operation, perform hook: @escaping @Sendable () -> Void) {
        for index in 1...call { onNext(operation) { if index == call { hook() } } }
    }

    /// A newer producer took over `transactionalId`: its epoch is bumped and its open transaction
    /// aborted; the existing sink's next call throws a fatal `.producerFenced`.
    package func fence(transactionalId: String) {
        withState { state in
            state.producerEpochs[transactionalId, default: 0] += 1
            state.abortOpenTransaction(of: transactionalId)
        }
    }

    /// An orderly revocation: the members owning `partitions` (in `group`, or in every group when
    /// nil) get `.revoked` at their next poll, the generation increases, and nobody owns them
    /// until ``assignAgain(_:group:)``.
    package func revoke(_ partitions: [TopicPartition], group: String? = nil) {
        withState { state in
            for name in state.groupNames(group) { state.withhold(partitions, in: name, lost: false) }
        }
    }

    /// As ``revoke(_:group:)``, but the members get `.lost` (session timeout, fencing): they may
    /// commit nothing for the partitions.
    package func lose(_ partitions: [TopicPartition], group: String? = nil) {
        withState { state in
            for name in state.groupNames(group) { state.withhold(partitions, in: name, lost: true) }
        }
    }

    /// Gives revoked or lost partitions back to the group: they go to the members the range
    /// assignment names (for one member, back to it), as `.assigned` at its next poll.
    package func assignAgain(_ partitions: [TopicPartition], group: String? = nil) {
        withState { state in
            for name in state.groupNames(group) {
                state.groups[name]!.withheld.subtract(partitions)
                state.rebalance(name)
            }
        }
    }

    /// The session of the member `instanceID` names in `group` expired (it stopped heartbeating: frozen
    /// or crashed): see ``State/expireSession(member:)``.
    package func expireSession(instanceID: String, group: String) {
        withState { state in
            let ids = state.groups[group]?.memberIDs.filter { state.members[$0]?.instanceID == instanceID } ?? []
            for id in ids { state.expireSession(member: id) }
        }
    }
}
