import CommandLineKit
import KafkaIO

/// Client settings from `--brokers` and `--kafka-config` (a librdkafka properties file: SASL, TLS, ...).
enum KafkaSettings {
    /// `--brokers` and `--kafka-config`, read by ``configuration(_:)``.
    static let options: [OptionSpec] = [
        .value("brokers", short: "b", valueName: "host:port,...", help: "Kafka bootstrap servers.",
               environment: "TRIPSTREAM_BROKERS"),
        .value("kafka-config", valueName: "file", help: "librdkafka properties file (SASL, TLS, ...).",
               environment: "TRIPSTREAM_KAFKA_CONFIG"),
    ]

    static func configuration(_ parsed: ParsedArguments) throws -> KafkaConfiguration {
        var configuration = KafkaConfiguration()
        if let file = try parsed.optional("kafka-config", parsed.string) {
            configuration = try KafkaConfiguration.load(propertiesFile: file)
        }
        if parsed.contains("brokers") { configuration.bootstrapServers = try parsed.string("brokers") }
        guard configuration.bootstrapServers != nil else {
            throw CommandFailure("no brokers: give --brokers HOST:PORT or bootstrap.servers in --kafka-config")
        }
        return configuration
    }
}
