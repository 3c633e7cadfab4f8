#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A small HTTP/1.1 server over POSIX sockets: one thread per connection, at most
/// ``Limits/maximumConnections`` at once (more are answered 503 and closed), keep-alive, read and
/// write timeouts. Every request head that does not parse gets its 4xx; a handler answers the rest.
public final class HTTPServer: @unchecked Sendable {
    // Safe: `listener` and `handler` are set once in init; `open` and `stopped` are atomic.
    public struct Limits: Sendable {
        /// Connections served at once, streams included. Default: 64.
        public var maximumConnections = 64
        /// Seconds a client may take to send a request head or to take a write. Default: 10.
        public var ioTimeoutSeconds = 10
        /// Requests served on one keep-alive connection. Default: 1,000.
        public var requestsPerConnection = 1000
        public init() {}
    }

    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    private let listener: Int32
    private let handler: Handler
    private let limits: Limits
    private let open = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let refused = Atomic<Int>(0)
    private let turnedAway = Atomic<Int>(0)
    /// The bound address; its port is the real one when port 0 was asked.
    public let address: ListenAddress

    /// Binds and listens; ``start()`` begins accepting.
    public init(address: ListenAddress, limits: Limits = Limits(), handler: @escaping Handler) throws(ServerError) {
        var ip = in_addr()
        guard inet_pton(AF_INET, address.host, &ip) == 1 else { throw .bind(address: "\(address)", errno: EINVAL) }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw .socket(errno: errno) }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = address.port.bigEndian
        socketAddress.sin_addr = ip
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 128) == 0 else {
            let code = errno
            close(descriptor)
            throw .bind(address: "\(address)", errno: code)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.address = ListenAddress(host: address.host, port: UInt16(bigEndian: actual.sin_port))
        self.listener = descriptor
        self.limits = limits
        self.handler = handler
    }

    /// Connections being served now.
    public var openConnections: Int { open.load(ordering: .relaxed) }
    /// Request heads that did not parse (each answered with its 4xx/5xx).
    public var refusedRequests: Int { refused.load(ordering: .relaxed) }
    /// Connections answered 503 because ``Limits/maximumConnections`` were open.
    public var turnedAwayConnections: Int { turnedAway.load(ordering: .relaxed) }

    /// Accepts on a background thread until ``stop()``.
    public func start() {
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "console-http"
        thread.start()
    }

    /// Stops accepting; connections being served finish on their own.
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        var failures = 0
        while !stopped.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if stopped.load(ordering: .relaxed) { return }
                // Out of descriptors the call fails at once until one closes: back off, do not spin.
                failures += 1
                if errno != EINTR && errno != ECONNABORTED { usleep(UInt32(min(5_000 << min(failures, 8), 1_000_000))) }
                continue
            }
            failures = 0
            let connection = SocketConnection(descriptor: client, timeoutSeconds: limits.ioTimeoutSeconds)
            guard open.add(1, ordering: .relaxed).newValue <= limits.maximumConnections else {
                open.subtract(1, ordering: .relaxed)
                turnedAway.add(1, ordering: .relaxed)
                _ = connection.write(HTTPResponse.error(.serviceUnavailable, "too many connections").head(keepAlive: false)
                    + Array("too many connections\n".utf8))
                continue
            }
            let thread = Thread { [self] in
                serve(connection)
                open.subtract(1, ordering: .relaxed)
            }
            thread.stackSize = 512 << 10
            thread.start()
        }
    }

    private func serve(_ connection: SocketConnection) {
        var buffer: [UInt8] = []
        for _ in 0..<limits.requestsPerConnection {
            var outcome = HTTPRequestParser.parse(buffer)
            while outcome == .incomplete {
                guard connection.read(into: &buffer) else { return }
                outcome = HTTPRequestParser.parse(buffer)
            }
            switch outcome {
            case .incomplete: return
            case .failure(let error):
                refused.add(1, ordering: .relaxed)
                let response = HTTPResponse.error(error.status, "bad request: \(error)")
                _ = write(response, to: connection, keepAlive: false)
                return
            case .request(let request, let consumed):
                buffer.removeFirst(consumed)
                let response = handler(request)
                guard write(response, to: connection, keepAlive: request.keepAlive, headOnly: request.method == "HEAD"),
                    request.keepAlive
                else { return }
            }
        }
    }

    /// False when the connection must close (a stream ended, the client left, or it asked to close).
    private func write(_ response: HTTPResponse, to connection: SocketConnection, keepAlive: Bool,
                       headOnly: Bool = false) -> Bool
    {
        switch response.body {
        case .bytes(let bytes):
            // A HEAD answer has the GET's Content-Length and no body.
            return connection.write(response.head(keepAlive: keepAlive) + (headOnly ? [] : bytes))
        case .stream(let produce):
            guard connection.write(response.head(keepAlive: false)), !headOnly else { return false }
            produce(connection)
            return false
        }
    }
}
