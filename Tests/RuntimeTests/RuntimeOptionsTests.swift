import KafkaIO
import Runtime
import Testing

struct RuntimeOptionsTests {
    @Test func theTransactionalProducerCompressesWithLZ4AndBarelyLingersByDefault() {
        let options = RuntimeOptions(kafka: KafkaConfiguration(["bootstrap.servers": "b:9092"]),
                                     stateDirectory: "state", instanceId: "a")
        let producer = options.transactionalProducerConfiguration
        #expect(producer["compression.type"] == "lz4")
        #expect(producer["linger.ms"] == "1")
        #expect(producer["bootstrap.servers"] == "b:9092", "the shared client properties pass through")
    }

    @Test func thePropertiesFileOverridesTheProducerDefaults() {
        let options = RuntimeOptions(kafka: KafkaConfiguration(["compression.type": "zstd", "linger.ms": "20"]),
                                     stateDirectory: "state", instanceId: "a")
        #expect(options.transactionalProducerConfiguration["compression.type"] == "zstd")
        #expect(options.transactionalProducerConfiguration["linger.ms"] == "20")
    }
}
