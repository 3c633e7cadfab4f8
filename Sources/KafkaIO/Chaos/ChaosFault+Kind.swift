extension ChaosFault {
    /// The kinds of fault, named as in `fault:` lines. Each request type that fails is a kind of its own.
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        case brokerDown = "broker-down"
        case leaderMove = "leader-move"
        case groupCoordinatorMove = "group-coordinator-move"
        case transactionCoordinatorMove = "transaction-coordinator-move"
        case produceErrors = "produce-errors"
        case fetchErrors = "fetch-errors"
        case initProducerIdErrors = "init-producer-id-errors"
        case addPartitionsToTxnErrors = "add-partitions-to-txn-errors"
        case addOffsetsToTxnErrors = "add-offsets-to-txn-errors"
        case endTxnErrors = "end-txn-errors"
        case txnOffsetCommitErrors = "txn-offset-commit-errors"
        case heartbeatErrors = "heartbeat-errors"
        case joinGroupErrors = "join-group-errors"
        case syncGroupErrors = "sync-group-errors"
        case roundTripSpike = "rtt-spike"

        /// The request type a request-error kind fails; nil for the other kinds.
        public var request: Request? { Request.allCases.first { $0.kind == self } }
    }
}
