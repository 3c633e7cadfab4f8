#if canImport(Glibc)
import Glibc
#endif
import HTTPServing
@testable import Runtime
import Testing

/// The metrics endpoint answers probes while other clients sit idle, and says what is wrong.
@Suite struct MetricsServerTests {
    static func connect(_ port: UInt16) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        precondition(result == 0, "connect failed")
        return fd
    }

    /// GET `path`; nil if no complete answer came within 20 s (a starved endpoint).
    static func get(_ port: UInt16, _ path: String) -> String? {
        let fd = connect(port)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET \(path) HTTP/1.0\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 { return nil }
            if n == 0 { break }
            response.append(contentsOf: buffer[0..<n])
        }
        return String(decoding: response, as: UTF8.self)
    }

    @Test func thirtyIdleConnectionsDoNotStarveTheHealthProbe() throws {
        let metrics = RuntimeMetrics()
        metrics.update { $0.ready = true }
        let server = try MetricsServer(address: "127.0.0.1", port: 0, metrics: metrics)
        server.start()
        // Idle clients that never send a request: one thread serving them in turn would keep the
        // probe waiting 30 × the read timeout.
        let idle = (0..<30).map { _ in Self.connect(server.port) }
        defer { idle.forEach { close($0) } }
        let health = Self.get(server.port, "/health")
        #expect(health?.hasPrefix("HTTP/1.1 200") == true, "\(health ?? "no answer")")
        let scrape = Self.get(server.port, "/metrics")
        #expect(scrape?.contains("tripstream_transactions_total") == true)
    }

    /// More slow clients than the port takes connections, each in the middle of its request head: the probe's
    /// connection makes the oldest of them give way, and is answered.
    @Test func aCrowdOfSlowHeadsDoesNotLockOutTheHealthProbe() throws {
        let metrics = RuntimeMetrics()
        metrics.update { $0.ready = true }
        var limits = MetricsServer.limits
        limits.maximumConnections = 8
        let server = try MetricsServer(address: "127.0.0.1", port: 0, metrics: metrics, limits: limits)
        server.start()
        defer { server.stop() }
        let crowd = (0..<20).map { _ in Self.connect(server.port) }
        defer { crowd.forEach { close($0) } }
        for fd in crowd {
            let head = Array("GET /metrics HTTP/1.1\r\nX-Slow: 1\r\n".utf8)
            _ = head.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        for _ in 0..<5 {
            let health = Self.get(server.port, "/health")
            #expect(health?.hasPrefix("HTTP/1.1 200") == true, "\(health ?? "no answer")")
        }
    }

    @Test func healthAndReadinessSayWhatIsWrong() throws {
        let metrics = RuntimeMetrics()
        let server = try MetricsServer(address: "127.0.0.1", port: 0, metrics: metrics)
        server.start()
        #expect(Self.get(server.port, "/ready")?.hasPrefix("HTTP/1.1 503") == true)
        metrics.update {
            $0.ready = true
            $0.restoresInProgress = 1
        }
        #expect(Self.get(server.port, "/ready")?.contains("restoring state") == true)
        #expect(Self.get(server.port, "/health")?.hasPrefix("HTTP/1.1 200") == true, "restoring is alive")
        metrics.update {
            $0.restoresInProgress = 0
            $0.consecutiveAborts = RuntimeMetrics.Values.unhealthyAborts
        }
        #expect(Self.get(server.port, "/ready")?.hasPrefix("HTTP/1.1 200") == true)
        let failing = Self.get(server.port, "/health")
        #expect(failing?.hasPrefix("HTTP/1.1 503") == true)
        #expect(failing?.contains("transactions aborted in a row") == true)
        metrics.update {
            $0.consecutiveAborts = 0
            $0.groupLost = true
        }
        #expect(Self.get(server.port, "/health")?.contains("lost this instance's partitions") == true)
    }

    /// Out of descriptors, accept fails at once until one is closed: the server (now HTTPServing's, shared with
    /// the console) waits, longer each time up to a second, instead of spinning a core; an interrupted accept is
    /// retried at once.
    @Test func acceptFailuresBackOff() {
        let pauses = (1...10).map { AcceptBackoff.pause(afterAcceptFailure: EMFILE, consecutive: $0) ?? 0 }
        #expect(pauses.first == 0.005)
        #expect(zip(pauses, pauses.dropFirst()).allSatisfy { $0 < $1 || $1 == 1 })
        #expect(pauses.last == 1)
        #expect(AcceptBackoff.pause(afterAcceptFailure: ENFILE, consecutive: 1_000) == 1)
        #expect(AcceptBackoff.pause(afterAcceptFailure: EINTR, consecutive: 3) == nil)
        #expect(AcceptBackoff.pause(afterAcceptFailure: ECONNABORTED, consecutive: 1) == nil)
    }

    @Test func aBadAddressIsAnErrorNamingIt() {
        #expect(throws: (any Error).self) { _ = try MetricsServer(address: "not-an-ip", port: 0, metrics: RuntimeMetrics()) }
    }
}
