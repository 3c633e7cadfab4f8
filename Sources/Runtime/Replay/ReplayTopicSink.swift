import KafkaIO

/// The outputs produced to topics under a prefix (`sandbox.` → `sandbox.tripstream.events`, …), created if
/// missing with the inputs' partition count where the broker allows (else auto-created by the first record), by an idempotent producer, keyed as the service keys them. A prefix
/// that would name a production topic is refused: a replay never writes where the service does.
final class ReplayTopicSink: ReplayOutputSink {
    private let producer: KafkaProducer
    private let names: (events: String, eta: String, deadLetters: String, tripSummaries: String)

    init(configuration: KafkaConfiguration, topics: Topics, prefix: String, partitions: Int32,
         log: (String) -> Void) throws
    {
        names = (prefix + topics.events, prefix + topics.eta, prefix + topics.deadLetters, prefix + topics.tripSummaries)
        let production = Set(topics.all)
        let targets = [names.events, names.eta, names.deadLetters, names.tripSummaries]
        if let clash = targets.first(where: production.contains) {
            throw ReplayError.topicPrefixClash(prefix: prefix, topic: clash)
        }
        do {
            let created = try KafkaAdmin(configuration: configuration).createTopics(
                targets.map { TopicSpec(name: $0, partitions: max(partitions, 1), replicationFactor: -1) },
                timeout: .seconds(10))
            if !created.isEmpty { log("created topics: \(created.joined(separator: ", "))") }
        } catch {
            log("warning: could not create topics \(targets.joined(separator: ", ")): \(error)")
        }
        producer = try KafkaProducer(configuration: configuration)
    }

    func write(_ output: inout OutputBatch) throws {
        for (buffer, topic) in [(output.events, names.events), (output.eta, names.eta),
                                (output.deadLetters, names.deadLetters), (output.tripSummaries, names.tripSummaries)]
        {
            try buffer.forEach { key, value in
                try producer.produce(topic: topic, key: key.isEmpty ? nil : key, value: value)
            }
        }
        output.removeAll()
    }

    func finish() throws {
        let report = try producer.flush(timeout: .seconds(60))
        guard report.allDelivered else {
            throw ReplayError.outputsNotDelivered(count: report.failed, firstError: report.firstError.map { "\($0)" })
        }
    }
}
