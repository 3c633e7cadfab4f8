/// The outcome of the delivery reports received since the previous ``KafkaProducer/flush(timeout:)``.
public struct DeliveryReport: Sendable, Equatable {
    /// Records the brokers acknowledged.
    public var delivered: Int
    /// Records that failed permanently (after librdkafka's own retries).
    public var failed: Int
    /// The first failure's code, for logs and metrics.
    public var firstError: KafkaError.Code?

    /// Creates a report.
    public init(delivered: Int = 0, failed: Int = 0, firstError: KafkaError.Code? = nil) {
        self.delivered = delivered
        self.failed = failed
        self.firstError = firstError
    }

    /// Every record reported since the previous flush was delivered.
    public var allDelivered: Bool { failed == 0 }
}
