/// Why the service cannot go on: each case names what it was doing and what failed.
public enum RuntimeError: Error, CustomStringConvertible, Equatable {
    /// `--metrics-port`'s address is not an IPv4 address.
    case metricsAddress(String)
    case metricsSocket(reason: String)
    case metricsListen(address: String, port: Int, reason: String)
    /// A partition's local snapshot could not be written.
    case snapshotFailed(reason: String)
    /// Outputs sent early into the open transaction belong to work that was dropped.
    case earlyOutputsDropped
    case recordsNotDelivered(count: Int, what: String, firstError: String?)
    case geofencesNotLoaded(topic: String, seconds: Int)
    case changelogStuck(partition: Int32, position: Int64, end: Int64)
    /// Fixes and trip commands are co-partitioned by userId: their topics must agree.
    case partitionCountsDiffer(String)
    case historyStore(partition: Int32?, reason: String)
    case changelogEndUnknown

    public var description: String {
        switch self {
        case let .metricsAddress(address): "metrics endpoint: \(address) is not an IPv4 address"
        case let .metricsSocket(reason): "metrics endpoint: socket() failed: \(reason)"
        case let .metricsListen(address, port, reason): "metrics endpoint: cannot listen on \(address):\(port): \(reason)"
        case let .snapshotFailed(reason): reason
        case .earlyOutputsDropped: "the work its early outputs came from was dropped"
        case let .recordsNotDelivered(count, what, firstError):
            "\(count) \(what) records not delivered (\(firstError ?? "?"))"
        case let .geofencesNotLoaded(topic, seconds): "geofence topic \(topic) not loaded within \(seconds) s"
        case let .changelogStuck(partition, position, end):
            "restoring partition \(partition): changelog stuck at \(position) of \(end)"
        case let .partitionCountsDiffer(described): "topics keyed by userId must have equal partition counts: \(described)"
        case let .historyStore(partition?, reason): "history store of partition \(partition): \(reason)"
        case let .historyStore(nil, reason): "history store: \(reason)"
        case .changelogEndUnknown: "the changelog's end is unknown"
        }
    }
}
