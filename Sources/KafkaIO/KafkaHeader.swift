/// A record header. Kafka allows a null header value, hence the optional.
public struct KafkaHeader: Hashable, Sendable {
    /// The header name.
    public var key: String
    /// The header value; `nil` is a null value.
    public var value: [UInt8]?

    /// Creates a header.
    public init(key: String, value: [UInt8]?) {
        self.key = key
        self.value = value
    }
}
