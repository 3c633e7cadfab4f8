#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A minimal HTTP/1.0 endpoint for Prometheus and health checks: `GET /metrics` and `GET /health`
/// (200 once the runtime is ready, 503 before). One thread, one request per connection; enough
/// for a scraper and a probe, and nothing the fold waits on.
public final class MetricsServer: @unchecked Sendable {
    // Safe: `descriptor` is written once in init and read by the serving thread only.
    private let descriptor: Int32
    private let metrics: RuntimeMetrics
    public let port: UInt16

    /// Binds `port` on all interfaces (0 picks a free port).
    public init(port: UInt16, metrics: RuntimeMetrics) throws {
        self.metrics = metrics
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ReplayError("metrics endpoint: socket() failed: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: INADDR_ANY)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw ReplayError("metrics endpoint: cannot listen on port \(port): \(reason)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.port = UInt16(bigEndian: actual.sin_port)
        self.descriptor = descriptor
    }

    /// Serves on a background thread for the life of the process.
    public func start() {
        let thread = Thread { [self] in serve() }
        thread.name = "metrics"
        thread.start()
    }

    private func serve() {
        while true {
            let client = accept(descriptor, nil, nil)
            if client < 0 { continue }
            handle(client)
            close(client)
        }
    }

    private func handle(_ client: Int32) {
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return }
        let request = String(decoding: buffer[0..<n], as: UTF8.self)
        let path = request.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        let (status, body): (String, String)
        switch path {
        case "/metrics": (status, body) = ("200 OK", metrics.render())
        case "/health", "/healthz":
            (status, body) = metrics.snapshot.ready ? ("200 OK", "ok\n") : ("503 Service Unavailable", "starting\n")
        default: (status, body) = ("404 Not Found", "try /metrics or /health\n")
        }
        let response = "HTTP/1.0 \(status)\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        var bytes = Array(response.utf8)
        var sent = 0
        while sent < bytes.count {
            let k = bytes.withUnsafeMutableBytes { send(client, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if k <= 0 { return }
            sent += k
        }
    }
}
