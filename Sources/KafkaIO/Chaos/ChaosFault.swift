/// One fault a chaos broker injects into a ``MockCluster``: what breaks, where, and for how long.
///
/// Every fault is one a correct exactly-once client survives: brokers come back, leaders and coordinators move to
/// brokers that are up, and requests fail only with the retriable errors a real broker answers with.
public enum ChaosFault: Hashable, Sendable {
    /// A broker closes its listener and drops its connections for `milliseconds`; the partitions it leads stay
    /// unavailable meanwhile (the mock elects no other leader).
    case brokerDown(broker: Int32, milliseconds: Int64)
    /// A partition's leadership moves to another broker; clients learn it from NOT_LEADER errors.
    case leaderMove(topic: String, partition: Int32, broker: Int32)
    /// The coordinator of a group or a transactional id moves to another broker.
    case coordinatorMove(MockCluster.CoordinatorKind, key: String, broker: Int32)
    /// The next requests of one type, from any client, fail with these errors in turn.
    case requestErrors(Request, [KafkaError.Code])
    /// Every response of a broker is delayed by `roundTrip` milliseconds, for `milliseconds`.
    case roundTripSpike(broker: Int32, roundTrip: Int32, milliseconds: Int64)

    /// What kind of fault this is, as named in `fault:` lines.
    public var kind: Kind {
        switch self {
        case .brokerDown: .brokerDown
        case .leaderMove: .leaderMove
        case .coordinatorMove(.group, _, _): .groupCoordinatorMove
        case .coordinatorMove(.transaction, _, _): .transactionCoordinatorMove
        case let .requestErrors(request, _): request.kind
        case .roundTripSpike: .roundTripSpike
        }
    }

    /// How long the fault lasts before it is healed; nil for one that needs no healing.
    public var milliseconds: Int64? {
        switch self {
        case let .brokerDown(_, milliseconds), let .roundTripSpike(_, _, milliseconds): milliseconds
        case .leaderMove, .coordinatorMove, .requestErrors: nil
        }
    }

    /// The `key=value` fields of its `fault:` line, in order.
    var fields: [(String, String)] {
        switch self {
        case let .brokerDown(broker, milliseconds):
            [("broker", "\(broker)"), ("for", ChaosStep.seconds(milliseconds))]
        case let .leaderMove(topic, partition, broker):
            [("topic", topic), ("partition", "\(partition)"), ("broker", "\(broker)")]
        case let .coordinatorMove(kind, key, broker):
            [(kind == .group ? "group" : "transactional-id", key), ("broker", "\(broker)")]
        case let .requestErrors(request, errors):
            [("api", "\(request.api)"), ("errors", errors.map(\.name).joined(separator: ","))]
        case let .roundTripSpike(broker, roundTrip, milliseconds):
            [("broker", "\(broker)"), ("rtt", "\(roundTrip)ms"), ("for", ChaosStep.seconds(milliseconds))]
        }
    }

    /// The fields of its `healed:` line: what came back.
    var healedFields: [(String, String)] {
        switch self {
        case let .brokerDown(broker, _), let .roundTripSpike(broker, _, _): [("broker", "\(broker)")]
        case .leaderMove, .coordinatorMove, .requestErrors: []
        }
    }
}
