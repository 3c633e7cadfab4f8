import KafkaIO
import Synchronization

/// The read model behind one lock: the feed thread applies batches, the server renders from it, the live
/// view takes its changes. Every hold is short (a batch, a render), so no reader waits long.
public final class FleetStore: Sendable {
    private let model = Mutex(FleetModel())
    public let topics: ConsoleTopics

    public init(topics: ConsoleTopics) { self.topics = topics }

    public func apply(_ records: [ConsumedRecord]) {
        model.withLock { model in
            for record in records {
                model.apply(topic: record.topic, key: record.key, value: record.value, timestamp: record.timestamp,
                            topics: topics)
            }
        }
    }

    public func read<Result>(_ body: (FleetModel) -> Result) -> Result { model.withLock { body($0) } }

    /// For tests and tools that feed the model without Kafka.
    public func update<Result>(_ body: (inout FleetModel) -> Result) -> Result { model.withLock { body(&$0) } }

    public func takeChanges() -> FleetChanges { model.withLock { $0.takeChanges() } }
}
