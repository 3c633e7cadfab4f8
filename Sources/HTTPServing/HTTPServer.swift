#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A small HTTP/1.1 server: one event-loop thread over epoll for every connection, handlers on a few worker
/// threads, keep-alive, Server-Sent Events with backpressure. Hardened for a public page (``ServerLimits``): a
/// deadline for a whole request head, an idle timeout for kept-alive connections, a write timeout, and a
/// connection limit at which the slowest client gives way to a new one (``SlowClientPolicy``), so a crowd of slow
/// clients costs a socket each and locks nobody out. Heads that do not parse get their 4xx; a handler answers the rest.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The bound address; its port is the real one when port 0 was asked.
    public let address: ListenAddress
    public let limits: ServerLimits
    public let counters = ServerCounters()
    private let loop: EventLoop
    private let pool: WorkerPool
    /// 0 created, 1 running, 2 stopped.
    private let state = Atomic<Int>(0)
    private let loopEnded = DispatchSemaphore(value: 0)

    /// Binds and listens; ``start()`` begins serving. `isPriority` picks the requests that a handler thread is kept
    /// for (a public page, a health probe), so slow handlers of other routes cannot hold them up.
    public init(address: ListenAddress, limits: ServerLimits = ServerLimits(),
                isPriority: @escaping @Sendable (HTTPRequest) -> Bool = { _ in false },
                handler: @escaping Handler) throws(ServerError)
    {
        let (listener, bound) = try ListeningSocket.open(address)
        let pool = WorkerPool(threads: limits.handlerThreads, name: "http-handler")
        do {
            loop = try EventLoop(listener: listener, limits: limits, pool: pool, counters: counters,
                                 isPriority: isPriority, handler: handler)
        } catch {
            pool.stop()
            close(listener)
            throw error
        }
        self.pool = pool
        self.address = bound
        self.limits = limits
    }

    /// Connections open now.
    public var openConnections: Int { counters.openConnections }
    /// Request heads that did not parse (each answered with its 4xx/5xx).
    public var refusedRequests: Int { counters.refusedRequests }
    /// New connections answered 503 because every open one was being answered or streamed to.
    public var turnedAwayConnections: Int { counters.turnedAwayConnections }

    /// Serves on a background thread until ``stop()``.
    public func start() {
        guard state.compareExchange(expected: 0, desired: 1, ordering: .relaxed).exchanged else { return }
        let thread = Thread { [self] in
            loop.run()
            loopEnded.signal()
        }
        thread.name = "http-loop"
        thread.start()
    }

    /// Stops serving: closes the listener and every connection (streams end at their next write); returns once the
    /// loop ended (at most 5 s). Handlers already running finish on their own.
    public func stop() {
        switch state.exchange(2, ordering: .relaxed) {
        case 0:
            loop.stop()
            loop.run()  // ends at once, closing the listener
        case 1:
            loop.stop()
            _ = loopEnded.wait(timeout: .now() + 5)
        default: return
        }
        pool.stop()
    }
}
