extension ChaosFault {
    /// A request type the chaos broker fails, with the errors it fails it with.
    public enum Request: String, CaseIterable, Hashable, Sendable {
        case produce, fetch, initProducerId, addPartitionsToTxn, addOffsetsToTxn, endTxn, txnOffsetCommit
        case heartbeat, joinGroup, syncGroup

        /// The protocol's request type.
        public var api: MockCluster.ApiKey {
            switch self {
            case .produce: .produce
            case .fetch: .fetch
            case .initProducerId: .initProducerId
            case .addPartitionsToTxn: .addPartitionsToTxn
            case .addOffsetsToTxn: .addOffsetsToTxn
            case .endTxn: .endTxn
            case .txnOffsetCommit: .txnOffsetCommit
            case .heartbeat: .heartbeat
            case .joinGroup: .joinGroup
            case .syncGroup: .syncGroup
            }
        }

        /// The kind of fault that fails this request type.
        public var kind: Kind {
            switch self {
            case .produce: .produceErrors
            case .fetch: .fetchErrors
            case .initProducerId: .initProducerIdErrors
            case .addPartitionsToTxn: .addPartitionsToTxnErrors
            case .addOffsetsToTxn: .addOffsetsToTxnErrors
            case .endTxn: .endTxnErrors
            case .txnOffsetCommit: .txnOffsetCommitErrors
            case .heartbeat: .heartbeatErrors
            case .joinGroup: .joinGroupErrors
            case .syncGroup: .syncGroupErrors
            }
        }

        /// The errors a real broker answers this request with when the client should try again, each of which
        /// librdkafka 2.0 and Sarama handle by retrying, refreshing metadata, finding the coordinator again or
        /// rejoining the group. Fatal and abort-requiring errors (fencing, invalid epochs, unknown members) are
        /// left out: they are not the broker failing but a client being told to stop.
        ///
        /// `.transport` makes the broker drop the connection instead of answering, as a restarting broker does.
        public var retriableErrors: [KafkaError.Code] {
            let coordinator: [KafkaError.Code] = [.coordinatorNotAvailable, .notCoordinator, .coordinatorLoadInProgress]
            return switch self {
            case .produce:
                [.notLeaderForPartition, .requestTimedOut, .notEnoughReplicas, .notEnoughReplicasAfterAppend, .transport]
            case .fetch: [.notLeaderForPartition, .leaderNotAvailable, .replicaNotAvailable, .kafkaStorageError, .transport]
            case .initProducerId: coordinator + [.concurrentTransactions]
            case .addPartitionsToTxn, .endTxn: coordinator + [.concurrentTransactions, .transport]
            case .addOffsetsToTxn, .txnOffsetCommit: coordinator + [.concurrentTransactions, .requestTimedOut]
            case .heartbeat: [.rebalanceInProgress, .notCoordinator, .coordinatorNotAvailable, .transport]
            case .joinGroup: coordinator + [.transport]
            case .syncGroup: [.rebalanceInProgress, .notCoordinator, .coordinatorNotAvailable]
            }
        }
    }
}
