import CommandLineKit
import KafkaIO
import LZ4IO
import Runtime

#if canImport(Glibc)
import Glibc
#endif

/// `tripstream dev-broker`: librdkafka's mock cluster on localhost, with TripStream's topics.
enum DevBrokerCommand {
    static let spec = CommandSpec(
        name: "dev-broker",
        abstract: "A Kafka-protocol broker on localhost for development and tests (librdkafka's mock cluster).",
        discussion: """
            In memory, about 5 MiB kept per partition; accepts transactions without enforcing them (aborted records \
            stay visible, offsets sent to a transaction are not stored). Prints the bootstrap address and runs until \
            SIGINT/SIGTERM. With --chaos SEED it fails on a seeded schedule (docs/chaos.md).
            """,
        options: [
            .value("broker-count", valueName: "n", help: "Brokers in the cluster.", default: "3"),
            .value("partitions", short: "p", valueName: "n", help: "Partitions of the keyed topics.", default: "4"),
            .value("bootstrap-file", valueName: "file", help: "Also write the bootstrap address to this file."),
        ] + TopicNames.options + DevBrokerChaos.options)

    static func run(_ parsed: ParsedArguments) throws {
        ShutdownSignal.install()
        let brokerCount = try parsed.int("broker-count", in: 1...16)
        let topics = topicSpecs(partitions: Int32(try parsed.int("partitions", in: 1...10_000)), brokerCount: brokerCount,
                                topics: try TopicNames.topics(parsed))
        let chaos = try DevBrokerChaos(parsed, brokerCount: brokerCount, topics: topics)
        let cluster = try start(brokerCount: brokerCount, topics: topics)
        Terminal.output(cluster.bootstrapServers)
        if let file = try parsed.optional("bootstrap-file", parsed.string) {
            let temporary = file + ".tmp"
            let writer = try FileWriter(path: temporary)
            try writer.write(cluster.bootstrapServers + "\n")
            try writer.close()
            guard rename(temporary, file) == 0 else { throw CommandFailure("cannot write \(file)") }
        }
        Terminal.error("dev broker running with \(brokerCount) brokers; stop with Ctrl-C")
        Terminal.error(limitNotice)
        if let chaos {
            Terminal.error(chaos.summary)
            chaos.run(on: cluster) { ShutdownSignal.isRequested }
        }
        while !ShutdownSignal.isRequested { Terminal.sleep(seconds: 0.1) }
        withExtendedLifetime(cluster) {}
    }

    /// librdkafka 2.0's mock fixes its per-partition limit in code (5 MiB and 100,000 record batches, no
    /// configuration key or API to raise it), so the dev broker says it instead.
    static let limitNotice = "note: the dev broker keeps about 5 MiB (at most 100,000 record batches) per partition and "
        + "drops the oldest beyond that without an error; `simulate` warns when it dropped what it published"

    /// A mock cluster with every TripStream topic created (the mock cannot create topics through
    /// the admin API).
    static func start(brokerCount: Int, partitions: Int32, topics: Topics) throws -> MockCluster {
        try start(brokerCount: brokerCount, topics: topicSpecs(partitions: partitions, brokerCount: brokerCount, topics: topics))
    }

    private static func start(brokerCount: Int, topics: [TopicSpec]) throws -> MockCluster {
        let cluster = try MockCluster(brokerCount: max(brokerCount, 1))
        for topic in topics {
            try cluster.createTopic(topic.name, partitions: topic.partitions, replicationFactor: topic.replicationFactor)
        }
        return cluster
    }

    /// Every TripStream topic with `partitions` partitions, the geofences' at most 3.
    private static func topicSpecs(partitions: Int32, brokerCount: Int, topics: Topics) -> [TopicSpec] {
        topics.all.map { topic in
            TopicSpec(name: topic, partitions: topic == topics.geofences ? min(partitions, 3) : partitions,
                      replicationFactor: Int16(min(brokerCount, 3)))
        }
    }
}
