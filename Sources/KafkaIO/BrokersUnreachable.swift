/// No broker of `bootstrap.servers` answered: said in one line a person can act on
/// ("cannot reach brokers localhost:1: connection refused"), librdkafka's own lines kept for `--verbose`.
public struct BrokersUnreachable: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// `bootstrap.servers` as configured.
    public var servers: String
    /// Why, in a few words: the system's reason for the last failed connection, or that none answered in time.
    public var reason: String
    /// librdkafka's log and error lines of the attempt, scrubbed of secrets.
    public var detail: [String]

    public var description: String { "cannot reach brokers \(servers): \(reason)" }
    public var debugDescription: String { ([description] + detail.map { "  librdkafka: \($0)" }).joined(separator: "\n") }
}
