import KafkaIO

/// The broker through librdkafka: each protocol answered by the KafkaIO client that does it.
public struct KafkaBroker: Broker {
    public init() {}

    public func inputLog(configuration: KafkaConfiguration) throws -> any InputLog {
        try KafkaConsumer(configuration: configuration, releasesRevokedPartitions: true)
    }

    public func reader(configuration: KafkaConfiguration) throws -> any PartitionReader {
        try KafkaReader(configuration: configuration)
    }

    public func sink(configuration: KafkaConfiguration, transactionalId: String) throws -> any TransactionalSink {
        try KafkaProducer(configuration: configuration, transactionalId: transactionalId)
    }

    public func admin(configuration: KafkaConfiguration) throws -> any TopicAdmin {
        try KafkaAdmin(configuration: configuration)
    }
}

extension KafkaConsumer: InputLog {
    public func seek(_ offsets: [TopicPartitionOffset]) throws { try seek(offsets, timeout: .seconds(5)) }

    public func membership() throws -> GroupMembership {
        GroupMembership(kafka: try groupMetadata(), generation: 0)
    }
}

extension KafkaReader: PartitionReader {
    public func seek(_ offsets: [TopicPartitionOffset]) throws { try seek(offsets, timeout: .seconds(5)) }
}

extension KafkaProducer: TransactionalSink {
    public func begin() throws { try beginTransaction() }

    public func produce(topic: String, partition: Int32?, key: UnsafeRawBufferPointer?,
                        value: UnsafeRawBufferPointer?) throws
    {
        try produce(topic: topic, partition: partition, key: key, value: value, headers: [])
    }

    public func sendOffsets(_ offsets: [TopicPartitionOffset], membership: GroupMembership, timeout: Duration) throws {
        guard let metadata = membership.kafka else {
            throw KafkaError(code: .invalidArgument, message: "offsets sent without the consumer's group metadata")
        }
        try sendOffsetsToTransaction(offsets, groupMetadata: metadata, timeout: timeout)
    }

    public func commit(timeout: Duration) throws { try commitTransaction(timeout: timeout) }
    public func abort(timeout: Duration) throws { try abortTransaction(timeout: timeout) }
}

extension KafkaAdmin: TopicAdmin {}
