import CRdKafka

extension KafkaError {
    /// A librdkafka error code (`rd_kafka_resp_err_t`): negative values are client-side, positive ones come from the
    /// broker. A struct rather than an enum so new codes from newer librdkafka versions never break a `switch`.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: Int32

        public init(rawValue: Int32) { self.rawValue = rawValue }

        init(_ err: rd_kafka_resp_err_t) { self.rawValue = err.rawValue }

        var rd: rd_kafka_resp_err_t { rd_kafka_resp_err_t(rawValue: rawValue) }

        /// librdkafka's symbolic name, e.g. `_TIMED_OUT` or `NOT_LEADER_FOR_PARTITION`.
        public var name: String { String(cString: rd_kafka_err2name(rd)) }

        public var description: String { "\(name)(\(rawValue))" }

        /// Errors that librdkafka itself retries or that clear up on their own (leader moves, brokers restarting).
        var isTransient: Bool {
            Self.transient.contains(self)
        }

        private static let transient: Set<Code> = [
            .timedOut, .transport, .allBrokersDown, .queueFull, .notLeaderForPartition, .leaderNotAvailable,
            .requestTimedOut, .notEnoughReplicas, .notEnoughReplicasAfterAppend, .coordinatorNotAvailable,
            .notCoordinator, .brokerNotAvailable,
        ]

        // MARK: - Client-side codes

        public static let noError = Code(RD_KAFKA_RESP_ERR_NO_ERROR)
        public static let unknown = Code(RD_KAFKA_RESP_ERR_UNKNOWN)
        public static let timedOut = Code(RD_KAFKA_RESP_ERR__TIMED_OUT)
        public static let queueFull = Code(RD_KAFKA_RESP_ERR__QUEUE_FULL)
        public static let partitionEOF = Code(RD_KAFKA_RESP_ERR__PARTITION_EOF)
        public static let transport = Code(RD_KAFKA_RESP_ERR__TRANSPORT)
        public static let allBrokersDown = Code(RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN)
        public static let invalidArgument = Code(RD_KAFKA_RESP_ERR__INVALID_ARG)
        public static let unsupportedFeature = Code(RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE)
        public static let state = Code(RD_KAFKA_RESP_ERR__STATE)
        public static let fatal = Code(RD_KAFKA_RESP_ERR__FATAL)
        public static let unknownTopic = Code(RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC)
        public static let unknownPartition = Code(RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION)
        public static let messageTimedOut = Code(RD_KAFKA_RESP_ERR__MSG_TIMED_OUT)

        // MARK: - Broker codes

        public static let unknownTopicOrPartition = Code(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART)
        public static let leaderNotAvailable = Code(RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE)
        public static let notLeaderForPartition = Code(RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION)
        public static let requestTimedOut = Code(RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT)
        public static let brokerNotAvailable = Code(RD_KAFKA_RESP_ERR_BROKER_NOT_AVAILABLE)
        public static let coordinatorNotAvailable = Code(RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE)
        public static let notCoordinator = Code(RD_KAFKA_RESP_ERR_NOT_COORDINATOR)
        public static let notEnoughReplicas = Code(RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS)
        public static let notEnoughReplicasAfterAppend = Code(RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND)
        public static let topicAlreadyExists = Code(RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
        public static let invalidPartitions = Code(RD_KAFKA_RESP_ERR_INVALID_PARTITIONS)
        public static let topicAuthorizationFailed = Code(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED)
        public static let invalidReplicationFactor = Code(RD_KAFKA_RESP_ERR_INVALID_REPLICATION_FACTOR)
        public static let outOfOrderSequenceNumber = Code(RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER)
        public static let duplicateSequenceNumber = Code(RD_KAFKA_RESP_ERR_DUPLICATE_SEQUENCE_NUMBER)
        public static let invalidProducerEpoch = Code(RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH)
        public static let producerFenced = Code(RD_KAFKA_RESP_ERR_PRODUCER_FENCED)
        /// librdkafka's own code for a producer fenced by a newer one with its transactional id.
        public static let fenced = Code(RD_KAFKA_RESP_ERR__FENCED)
        public static let rebalanceInProgress = Code(RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS)
        public static let replicaNotAvailable = Code(RD_KAFKA_RESP_ERR_REPLICA_NOT_AVAILABLE)
        public static let coordinatorLoadInProgress = Code(RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS)
        public static let concurrentTransactions = Code(RD_KAFKA_RESP_ERR_CONCURRENT_TRANSACTIONS)
        public static let kafkaStorageError = Code(RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR)
    }
}
