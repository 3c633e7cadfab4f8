/// What a chaos schedule may break: the cluster's brokers and topics, and the groups and transactional ids whose
/// coordinators it may move (the mock cannot list them, so they are named here).
public struct ChaosTarget: Hashable, Sendable {
    /// Brokers `1...brokerCount`.
    public var brokerCount: Int
    /// Topics whose partition leaders may move.
    public var topics: [TopicSpec]
    /// Consumer groups whose coordinator may move.
    public var groups: [String]
    /// Transactional ids whose coordinator may move.
    public var transactionalIds: [String]

    public init(brokerCount: Int, topics: [TopicSpec], groups: [String] = [], transactionalIds: [String] = []) {
        self.brokerCount = brokerCount
        self.topics = topics
        self.groups = groups
        self.transactionalIds = transactionalIds
    }

    /// The kinds of fault this target allows. Moves need a second broker and something to move; a broker goes down
    /// only while another stays up. Request errors and round-trip spikes need nothing.
    public var kinds: [ChaosFault.Kind] {
        ChaosFault.Kind.allCases.filter { kind in
            switch kind {
            case .brokerDown: brokerCount >= 2
            case .leaderMove: brokerCount >= 2 && topics.contains { $0.partitions > 0 }
            case .groupCoordinatorMove: brokerCount >= 2 && !groups.isEmpty
            case .transactionCoordinatorMove: brokerCount >= 2 && !transactionalIds.isEmpty
            default: true
            }
        }
    }
}
