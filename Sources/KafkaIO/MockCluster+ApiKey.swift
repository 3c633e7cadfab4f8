extension MockCluster {
    /// A Kafka protocol request type, to target fault injection.
    public struct ApiKey: RawRepresentable, Hashable, Sendable {
        public var rawValue: Int16
        public init(rawValue: Int16) { self.rawValue = rawValue }

        public static let produce = ApiKey(rawValue: 0)
        public static let fetch = ApiKey(rawValue: 1)
        public static let listOffsets = ApiKey(rawValue: 2)
        public static let metadata = ApiKey(rawValue: 3)
        public static let offsetCommit = ApiKey(rawValue: 8)
        public static let offsetFetch = ApiKey(rawValue: 9)
        public static let findCoordinator = ApiKey(rawValue: 10)
        public static let joinGroup = ApiKey(rawValue: 11)
        public static let heartbeat = ApiKey(rawValue: 12)
        public static let syncGroup = ApiKey(rawValue: 14)
        public static let initProducerId = ApiKey(rawValue: 22)
        public static let addPartitionsToTxn = ApiKey(rawValue: 24)
        public static let endTxn = ApiKey(rawValue: 26)
        public static let txnOffsetCommit = ApiKey(rawValue: 28)
    }
}
