#if canImport(Glibc)
import Glibc
#endif
import HTTPServing

/// `run`'s endpoint for Prometheus and probes, on the same HTTP server as the console (``MetricsRoutes``):
/// `GET /metrics`, `GET /health` and `GET /ready`. The probes have a handler thread of their own, and the server's
/// limits (a deadline for a request head, the slowest client giving way at the connection limit) keep idle or slow
/// clients from starving them. Nothing here is on the fold's path.
public final class MetricsServer: Sendable {
    private let server: HTTPServer
    public var port: UInt16 { server.address.port }

    /// Fewer connections and handler threads than the console's: Prometheus and a few probes are its clients.
    public static let limits: ServerLimits = {
        var limits = ServerLimits()
        limits.maximumConnections = 256
        limits.handlerThreads = 2
        return limits
    }()

    /// Binds `address` (IPv4, default all interfaces) on `port` (0 picks a free port).
    public init(address: String = "0.0.0.0", port: UInt16, metrics: RuntimeMetrics,
                limits: ServerLimits = MetricsServer.limits) throws(RuntimeError)
    {
        var ip = in_addr()
        guard inet_pton(AF_INET, address, &ip) == 1 else { throw .metricsAddress(address) }
        do {
            server = try HTTPServer(address: ListenAddress(host: address, port: port), limits: limits,
                                    isPriority: { $0.path != "/metrics" }) { MetricsRoutes.respond(to: $0, metrics: metrics) }
        } catch {
            switch error {
            case .socket(let code): throw .metricsSocket(reason: String(cString: strerror(code)))
            case .bind(_, let code):
                throw .metricsListen(address: address, port: Int(port), reason: String(cString: strerror(code)))
            }
        }
    }

    /// Serves on background threads until ``stop()``, or for the life of the process.
    public func start() { server.start() }

    public func stop() { server.stop() }
}
