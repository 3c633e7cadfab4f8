#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A small HTTP/1.0 endpoint for Prometheus and probes: `GET /metrics`, `GET /health` (liveness:
/// 503 when transactions keep failing or the group lost our partitions) and `GET /ready`
/// (readiness: 200 once started and no partition is restoring). Each connection is served on its
/// own thread with read and write timeouts, so idle or slow clients cannot starve a probe; past
/// `maximumConnections` at once, new ones are closed at once. Nothing here is on the fold's path.
public final class MetricsServer: @unchecked Sendable {
    // Safe: `descriptor` is written once in init; `open` is atomic.
    private let descriptor: Int32
    private let metrics: RuntimeMetrics
    private let open = Atomic<Int>(0)
    public let port: UInt16
    public static let maximumConnections = 64
    /// Seconds a client may take to send its request, or to take the response.
    public static let ioTimeout = 2

    /// Binds `address` (IPv4, default all interfaces) on `port` (0 picks a free port).
    public init(address: String = "0.0.0.0", port: UInt16, metrics: RuntimeMetrics) throws {
        self.metrics = metrics
        var ip = in_addr()
        guard inet_pton(AF_INET, address, &ip) == 1 else {
            throw RuntimeError.metricsAddress(address)
        }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RuntimeError.metricsSocket(reason: LocalFileError.systemReason) }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = port.bigEndian
        socketAddress.sin_addr = ip
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 128) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw RuntimeError.metricsListen(address: address, port: Int(port), reason: reason)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.port = UInt16(bigEndian: actual.sin_port)
        self.descriptor = descriptor
    }

    /// Serves on background threads for the life of the process.
    public func start() {
        let thread = Thread { [self] in serve() }
        thread.name = "metrics"
        thread.start()
    }

    private func serve() {
        var failures = 0
        while true {
            let client = accept(descriptor, nil, nil)
            if client < 0 {
                // Out of descriptors (EMFILE) the same call fails at once until one is closed: retried
                // at once, this thread would spin a core away from the fold.
                failures += 1
                if let pause = Self.pause(afterAcceptFailure: errno, consecutive: failures) {
                    usleep(UInt32(pause * 1_000_000))
                }
                continue
            }
            failures = 0
            guard open.add(1, ordering: .relaxed).newValue <= Self.maximumConnections else {
                open.subtract(1, ordering: .relaxed)
                close(client)
                continue
            }
            let thread = Thread { [self] in
                handle(client)
                close(client)
                open.subtract(1, ordering: .relaxed)
            }
            thread.stackSize = 256 << 10
            thread.start()
        }
    }

    /// Seconds to wait before accepting again after the `consecutive`-th failure in a row with
    /// `error`: nil (at once) for a connection that was interrupted or gave up before being
    /// accepted, else 5 ms doubling to 1 s, as net/http does.
    static func pause(afterAcceptFailure error: Int32, consecutive: Int) -> Double? {
        if error == EINTR || error == ECONNABORTED || error == EAGAIN { return nil }
        return min(0.005 * Double(1 << min(max(consecutive - 1, 0), 8)), 1)
    }

    private func handle(_ client: Int32) {
        var timeout = timeval(tv_sec: Self.ioTimeout, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // The request line is all that matters; read until it is complete (or 8 KiB, or the timeout).
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        while request.count < 8192, !request.contains(UInt8(ascii: "\n")) {
            let n = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return }
            request.append(contentsOf: buffer[0..<n])
        }
        let line = String(decoding: request.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let path = line.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        let (status, body) = respond(to: path)
        let response = "HTTP/1.0 \(status)\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        let bytes = Array(response.utf8)
        var sent = 0
        while sent < bytes.count {
            let k = bytes.withUnsafeBytes { send(client, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if k <= 0 { return }
            sent += k
        }
    }

    private func respond(to path: String) -> (String, String) {
        switch path {
        case "/metrics": return ("200 OK", metrics.render())
        case "/health", "/healthz":
            let values = metrics.snapshot
            if let problem = values.healthProblem { return ("503 Service Unavailable", problem + "\n") }
            return values.ready ? ("200 OK", "ok\n") : ("503 Service Unavailable", "starting\n")
        case "/ready", "/readyz":
            let values = metrics.snapshot
            if !values.ready { return ("503 Service Unavailable", "starting\n") }
            if values.restoresInProgress > 0 { return ("503 Service Unavailable", "restoring state\n") }
            return ("200 OK", "ready\n")
        default: return ("404 Not Found", "try /metrics, /health or /ready\n")
        }
    }
}
