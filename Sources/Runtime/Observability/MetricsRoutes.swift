import HTTPServing

/// What `run`'s metrics port answers. No sockets: tests call it with parsed requests.
///
/// `/metrics`: Prometheus text. `/health` (liveness): 503 when transactions keep failing or the group lost our
/// partitions. `/ready` (readiness): 200 once started and no partition is restoring.
enum MetricsRoutes {
    static func respond(to request: HTTPRequest, metrics: RuntimeMetrics) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = HTTPResponse.error(.methodNotAllowed, "only GET and HEAD")
            response.headers.append(("Allow", "GET, HEAD"))
            return response
        }
        switch request.path {
        case "/metrics": return .text(.ok, metrics.render(), type: "text/plain; version=0.0.4")
        case "/health", "/healthz":
            let values = metrics.snapshot
            if let problem = values.healthProblem { return .error(.serviceUnavailable, problem) }
            return values.ready ? .text(.ok, "ok\n") : .error(.serviceUnavailable, "starting")
        case "/ready", "/readyz":
            let values = metrics.snapshot
            if !values.ready { return .error(.serviceUnavailable, "starting") }
            if values.restoresInProgress > 0 { return .error(.serviceUnavailable, "restoring state") }
            return .text(.ok, "ready\n")
        default: return .error(.notFound, "try /metrics, /health or /ready")
        }
    }
}
