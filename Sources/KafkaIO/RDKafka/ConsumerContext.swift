import Synchronization

/// What the consumer's rebalance callback records, for the Swift poll loop to drain.
///
/// The callback reaches this object through `rd_kafka_opaque` (an unretained `Unmanaged` pointer, kept alive by the
/// consumer that owns both it and the client). It is `Sendable` because its only state is behind a `Mutex`.
final class ConsumerContext: Sendable {
    let rebalanceEvents = Mutex<[RebalanceEvent]>([])
    /// Whether an assignment ever arrived (see `ConsumerClient.deinit`).
    let everAssigned = Mutex<Bool>(false)
    /// Whether revoked partitions stay assigned until the application releases them (`KafkaConsumer.release`),
    /// and whether the consumer is closing (then they go at once: nobody will release them).
    let releasesRevokedPartitions: Bool
    let closing = Mutex<Bool>(false)

    init(releasesRevokedPartitions: Bool = false) {
        self.releasesRevokedPartitions = releasesRevokedPartitions
    }

    /// Whether the callback leaves a revocation for the application to release.
    var holdsRevocations: Bool { releasesRevokedPartitions && !closing.withLock { $0 } }

    func record(_ event: RebalanceEvent) {
        if case .assigned = event { everAssigned.withLock { $0 = true } }
        rebalanceEvents.withLock { $0.append(event) }
    }

    func takeRebalanceEvents() -> [RebalanceEvent] {
        rebalanceEvents.withLock { events in
            defer { events = [] }
            return events
        }
    }
}
