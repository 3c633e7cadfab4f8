import Synchronization

/// What the consumer's rebalance callback records, for the Swift poll loop to drain.
///
/// The callback reaches this object through `rd_kafka_opaque` (an unretained `Unmanaged` pointer, kept alive by the
/// consumer that owns both it and the client). It is `Sendable` because its only state is behind a `Mutex`.
final class ConsumerContext: Sendable {
    let rebalanceEvents = Mutex<[RebalanceEvent]>([])
    /// Whether an assignment ever arrived (see `ConsumerClient.deinit`).
    let everAssigned = Mutex<Bool>(false)

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
