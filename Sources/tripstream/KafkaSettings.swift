import CommandLineKit
import CommandSupport
import KafkaIO

/// Client settings from `--brokers` and `--kafka-config` (a librdkafka properties file: SASL, TLS, ...).
enum KafkaSettings {
    /// `--brokers` and `--kafka-config`, read by ``configuration(_:)``.
    static let options: [OptionSpec] = [
        .value("brokers", short: "b", valueName: "host:port,...", help: "Kafka bootstrap servers.",
               environment: "TRIPSTREAM_BROKERS"),
        .value("kafka-config", valueName: "file", help: "librdkafka properties file (SASL, TLS, ...).",
               environment: "TRIPSTREAM_KAFKA_CONFIG"),
        verbose,
    ]

    /// `--verbose`: errors carry librdkafka's own lines and where KafkaIO raised them.
    static let verbose = OptionSpec.flag(
        "verbose", help: "On an error, also print librdkafka's detail (its log lines, error flags, source places).")

    /// Returns once a broker answers; otherwise stops the command within seconds, in one line ("cannot reach
    /// brokers localhost:1: connection refused"), where the clients' own calls would wait 30 s and more.
    static func checkReachable(_ configuration: KafkaConfiguration) throws {
        do {
            try BrokerReachability.check(configuration)
        } catch {
            throw CommandFailure(error)
        }
    }

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
