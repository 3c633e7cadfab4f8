extension MockCluster {
    /// A Kafka protocol request type, to target fault injection.
    public struct ApiKey: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
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
        public static let addOffsetsToTxn = ApiKey(rawValue: 25)
        public static let endTxn = ApiKey(rawValue: 26)
        public static let txnOffsetCommit = ApiKey(rawValue: 28)

        private static let names: [Int16: String] = [
            0: "Produce", 1: "Fetch", 2: "ListOffsets", 3: "Metadata", 8: "OffsetCommit", 9: "OffsetFetch",
            10: "FindCoordinator", 11: "JoinGroup", 12: "Heartbeat", 14: "SyncGroup", 22: "InitProducerId",
            24: "AddPartitionsToTxn", 25: "AddOffsetsToTxn", 26: "EndTxn", 28: "TxnOffsetCommit",
        ]

        /// The protocol's name of the request, e.g. `EndTxn`, or `ApiKey(n)` for one not listed here.
        public var description: String { Self.names[rawValue] ?? "ApiKey(\(rawValue))" }
    }
}
