/// A change of a group consumer's assignment, recorded by the rebalance callback and drained with
/// ``KafkaConsumer/takeRebalanceEvents()``.
///
/// By the time the application sees an event, librdkafka's assignment has already been updated: newly assigned
/// partitions start fetching at their committed offsets (or `auto.offset.reset`), revoked ones have stopped.
public enum RebalanceEvent: Hashable, Sendable {
    /// Partitions added to this member (only the increment under the cooperative protocol).
    case assigned([TopicPartition])
    /// Partitions taken away in an orderly rebalance; their offsets may still be committed.
    case revoked([TopicPartition])
    /// Partitions lost without an orderly hand-over (session timeout, fencing): another member may already own
    /// them, so nothing may be committed for them.
    case lost([TopicPartition])
    /// The assign/unassign call in the callback failed; the consumer should be closed and recreated.
    case failed(KafkaError)

    public static func == (lhs: RebalanceEvent, rhs: RebalanceEvent) -> Bool {
        switch (lhs, rhs) {
        case (.assigned(let a), .assigned(let b)), (.revoked(let a), .revoked(let b)), (.lost(let a), .lost(let b)):
            a == b
        case (.failed(let a), .failed(let b)): a.code == b.code && a.message == b.message
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .assigned(let partitions):
            hasher.combine(0)
            hasher.combine(partitions)
        case .revoked(let partitions):
            hasher.combine(1)
            hasher.combine(partitions)
        case .lost(let partitions):
            hasher.combine(2)
            hasher.combine(partitions)
        case .failed(let error):
            hasher.combine(3)
            hasher.combine(error.code)
        }
    }
}
