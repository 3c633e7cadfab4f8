/// How much the server takes from its clients, and for how long. The defaults suit a public tracking page with
/// nothing but this server in front of it.
public struct ServerLimits: Sendable, Equatable {
    /// Connections open at once, streams included. A connection past it closes the one that has waited longest
    /// for its request head (or sat idle longest between requests); only when every connection is being answered
    /// or streamed to is the new one answered 503. Default: 1,024.
    public var maximumConnections = 1024
    /// Seconds from a connection's start (a kept-alive connection: from the first byte of its next request) to
    /// the end of the request head; then 408 and close. Default: 10.
    public var headDeadlineSeconds = 10.0
    /// Seconds a kept-alive connection may wait for the first byte of its next request. Default: 15.
    public var idleTimeoutSeconds = 15.0
    /// Seconds a response or a stream may wait for the client to take any byte. Default: 10.
    public var writeTimeoutSeconds = 10.0
    /// Requests served on one keep-alive connection. Default: 1,000.
    public var requestsPerConnection = 1000
    /// Threads that run handlers; with two or more, one of them runs only priority requests. Default: 4.
    public var handlerThreads = 4
    /// Bytes a stream may have waiting for its client before its writer waits (up to ``writeTimeoutSeconds``).
    /// Default: 1 MiB.
    public var streamBufferBytes = 1 << 20

    public init() {}
}
