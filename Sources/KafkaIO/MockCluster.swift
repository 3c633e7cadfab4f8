import CRdKafka
import Glibc

/// librdkafka's in-process mock Kafka cluster: real Kafka protocol on localhost TCP, in memory.
///
/// For tests and the `dev-broker`/`demo` commands. It supports consumer groups, idempotent producers and fault
/// injection, and accepts the transactional API without enforcing it (aborted records stay visible; offsets sent to
/// a transaction are not stored). It keeps ~5 MiB per partition and only speaks Metadata up to v2. CreateTopics is
/// not implemented (requests time out), so create topics with ``createTopic(_:partitions:replicationFactor:)`` or
/// a ``KafkaAdmin`` made with ``KafkaAdmin/init(mockCluster:configuration:)``. Unknown topics auto-create with the
/// mock's default partition count.
public final class MockCluster {
    /// The dedicated producer instance the mock cluster is attached to (librdkafka requires one).
    private let client: RDKafkaClient
    /// The `rd_kafka_mock_cluster_t *`, destroyed in `deinit` before `client`.
    private let cluster: OpaquePointer

    /// The number of brokers; their ids are `1...brokerCount`.
    public let brokerCount: Int
    /// `host:port,…` of the brokers, for `bootstrap.servers`.
    public let bootstrapServers: String

    /// Starts a mock cluster.
    ///
    /// - Parameters:
    ///   - brokerCount: Number of brokers. Default: 3.
    ///   - configuration: Extra properties for the hosting client, e.g. `debug=mock`. Default: `log_level=4`.
    public init(brokerCount: Int = 3, configuration: KafkaConfiguration = KafkaConfiguration()) throws(KafkaError) {
        // The hosting client never connects anywhere; only the mock uses it. log_level 4 (warnings) hides its
        // harmless "no bootstrap.servers" notice.
        client = try RDKafkaClient(
            type: RD_KAFKA_PRODUCER, configuration: configuration.settingDefault("log_level", "4"))
        guard let cluster = rd_kafka_mock_cluster_new(client.handle, Int32(brokerCount)) else {
            throw KafkaError(code: .fatal, message: "rd_kafka_mock_cluster_new failed")
        }
        self.cluster = cluster
        self.brokerCount = brokerCount
        bootstrapServers = String(cString: rd_kafka_mock_cluster_bootstraps(cluster))
        disableNagleOnListeners()
    }

    deinit {
        rd_kafka_mock_cluster_destroy(cluster)
    }

    /// A configuration with `bootstrap.servers` pointing at this cluster.
    public var clientConfiguration: KafkaConfiguration {
        KafkaConfiguration(properties: [("bootstrap.servers", bootstrapServers)])
    }

    // MARK: - Topics

    /// Creates a topic.
    ///
    /// - Throws: ``KafkaError`` `topicAlreadyExists` if it exists, or another mock error.
    public func createTopic(_ name: String, partitions: Int32, replicationFactor: Int16 = 1) throws(KafkaError) {
        try KafkaError.check(rd_kafka_mock_topic_create(cluster, name, partitions, Int32(replicationFactor)))
    }

    /// Moves a partition's leadership to `brokerId` (clients learn it from NOT_LEADER errors and metadata refresh).
    public func setPartitionLeader(topic: String, partition: Int32, brokerId: Int32) throws(KafkaError) {
        try KafkaError.check(rd_kafka_mock_partition_set_leader(cluster, topic, partition, brokerId))
    }

    /// Makes `brokerId` the coordinator of a group or a transactional id: requests that reach another broker are
    /// answered NOT_COORDINATOR, and clients find the new one through FindCoordinator. The mock keeps the group's
    /// members and offsets, as Kafka does when a coordinator moves.
    public func setCoordinator(_ kind: CoordinatorKind, key: String, brokerId: Int32) throws(KafkaError) {
        try KafkaError.check(rd_kafka_mock_coordinator_set(cluster, kind.rawValue, key, brokerId))
    }

    // MARK: - Fault injection

    /// Makes the next `errors.count` requests of kind `apiKey` (to any broker) fail with these errors, in order.
    /// ``KafkaError/Code/transport`` makes the broker drop the connection instead.
    public func pushRequestErrors(apiKey: ApiKey, errors: [KafkaError.Code]) {
        let codes = errors.map { $0.rd }
        codes.withUnsafeBufferPointer {
            rd_kafka_mock_push_request_errors_array(cluster, apiKey.rawValue, $0.count, $0.baseAddress)
        }
    }

    /// Takes a broker down: its listener closes and connections drop until ``setBrokerUp(_:)``.
    public func setBrokerDown(_ brokerId: Int32) throws(KafkaError) {
        try KafkaError.check(rd_kafka_mock_broker_set_down(cluster, brokerId))
    }

    /// Brings a broker back up.
    public func setBrokerUp(_ brokerId: Int32) throws(KafkaError) {
        try KafkaError.check(rd_kafka_mock_broker_set_up(cluster, brokerId))
        disableNagleOnListeners()  // in case the broker opened a new listener
    }

    /// Adds a round-trip delay to every response of a broker.
    public func setBrokerRoundTripTime(_ brokerId: Int32, milliseconds: Int32) throws(KafkaError) {
        try KafkaError.check(rd_kafka_mock_broker_set_rtt(cluster, brokerId, milliseconds))
    }

    // MARK: - Sockets

    /// Sets TCP_NODELAY on the brokers' listening sockets; Linux copies it to every accepted connection.
    ///
    /// The mock answers each request with a small write and leaves Nagle's algorithm on, so a second response
    /// in flight waits for the client's delayed ACK: ~40 ms per transactional flush. Kafka's own brokers set
    /// TCP_NODELAY, so this makes the dev broker behave like a real one. The mock has no option for it, hence
    /// the search through this process's descriptors for listeners bound to the brokers' ports.
    private func disableNagleOnListeners() {
        let ports = Set(bootstrapServers.split(separator: ",").compactMap { $0.split(separator: ":").last.flatMap { UInt16($0) } })
        guard let directory = opendir("/proc/self/fd") else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let descriptor = Int32(name), Self.isListener(descriptor, onAnyOf: ports) else { continue }
            var on: Int32 = 1
            setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    private static func isListener(_ descriptor: Int32, onAnyOf ports: Set<UInt16>) -> Bool {
        var listening: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 1 else {
            return false
        }
        var address = sockaddr_in()
        var addressLength = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &addressLength) }
        }
        guard named == 0, address.sin_family == sa_family_t(AF_INET) else { return false }
        return ports.contains(UInt16(bigEndian: address.sin_port))
    }
}
