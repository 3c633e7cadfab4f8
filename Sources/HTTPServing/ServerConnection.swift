/// One accepted connection, as the event loop keeps it. Only the loop's thread touches it.
final class ServerConnection {
    let id: UInt64
    let descriptor: Int32
    var phase: ConnectionPhase
    /// Bytes received and not yet consumed by a request head.
    var input: [UInt8] = []
    /// The response being sent, and how much of it the kernel took.
    var output: [UInt8] = []
    var outputSent = 0
    /// Whether the connection stays open after the response being sent.
    var keepAlive = false
    var requestsServed = 0
    /// The open stream's channel, in phase `streaming`.
    var stream: StreamChannel?
    /// The epoll events watched now.
    var interest: UInt32

    init(id: UInt64, descriptor: Int32, phase: ConnectionPhase, interest: UInt32) {
        self.id = id
        self.descriptor = descriptor
        self.phase = phase
        self.interest = interest
    }

    var hasPendingOutput: Bool { outputSent < output.count }
}
