/// Where a connection is in its request/response cycle; times are monotonic milliseconds.
enum ConnectionPhase: Equatable, Sendable {
    /// A request head is arriving; it began at `since` (the accept, or a kept-alive connection's first byte).
    case awaitingHead(since: Int64)
    /// Kept alive since `since`, no byte of the next request yet.
    case idle(since: Int64)
    /// A handler is answering.
    case handling
    /// A response is being sent; the client last took bytes (or the response began) at `progress`.
    case writing(progress: Int64)
    /// A stream is open; `progress` is when the client last took bytes, nil while nothing waits to be sent.
    case streaming(progress: Int64?)
}
