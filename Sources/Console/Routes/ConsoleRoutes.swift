import HTTPServing

/// Maps requests to responses. No sockets here: tests call ``respond(_:)`` with parsed requests.
///
/// - `/`, `/api/config`, `/api/snapshot`, `/api/live` (SSE), `/api/metrics`: the operations console, behind
///   ``ConsoleAccess``.
/// - `/track/<token>`, `/api/track/<token>`: one trip for its customer, behind the token alone.
/// - `/assets/…`: the pages' scripts and styles (nothing in them is data); `/healthz`.
/// - `/tiles/<z>/<x>/<y>.<format>` and `/api/map`: the base map from a tiles file, and where the pages find it;
///   public, as the tracking page draws it too (map tiles name no one).
public struct ConsoleRoutes: Sendable {
    let store: FleetStore
    let hub: LiveHub
    let metrics: ServiceMetrics?
    let settings: ConsoleSettings
    /// Reads a user's fixes for playback; nil: no playback.
    let playback: PlaybackSource?
    /// Wall clock, ms since 1970: tracking links expire by it.
    let now: @Sendable () -> Int64
    public let counters = ConsoleCounters()
    /// More lines for `/metrics` (the server's own counters), set by whoever owns the server.
    let extraMetrics: @Sendable () -> String

    public init(store: FleetStore, hub: LiveHub, metrics: ServiceMetrics?, settings: ConsoleSettings,
                playback: PlaybackSource? = nil, now: @escaping @Sendable () -> Int64,
                extraMetrics: @escaping @Sendable () -> String = { "" })
    {
        self.playback = playback
        self.extraMetrics = extraMetrics
        self.store = store
        self.hub = hub
        self.metrics = metrics
        self.settings = settings
        self.now = now
    }

    public func respond(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = HTTPResponse.error(.methodNotAllowed, "only GET and HEAD")
            response.headers.append(("Allow", "GET, HEAD"))
            return response
        }
        var response = route(request)
        counters.countResponse(response.status.code)
        response.headers.append(("Referrer-Policy", "no-referrer"))
        let images = settings.tiles?.imageSources ?? "'self' data:"
        response.headers.append(("Content-Security-Policy",
                                 "default-src 'self'; img-src \(images); style-src 'self'; frame-ancestors 'none'"))
        return response
    }

    private func route(_ request: HTTPRequest) -> HTTPResponse {
        let path = request.path
        if path == "/healthz" { return .text(.ok, "ok\n") }
        if path == "/favicon.ico" { return HTTPResponse(status: HTTPStatus(204, "No Content")) }
        if path.hasPrefix("/assets/") { return asset(String(path.dropFirst(8))) }
        if path.hasPrefix("/track/") { return trackingPage(String(path.dropFirst(7))) }
        if path.hasPrefix("/api/track/") { return trackingData(String(path.dropFirst(11))) }
        if path.hasPrefix("/tiles/") { return tile(path.dropFirst(7)) }
        if path == "/api/map" {
            var json = JSONText()
            writeMap(&json)
            return .json(json.bytes)
        }
        guard path == "/" || path == "/metrics" || path.hasPrefix("/api/") else { return .error(.notFound, "no such page: try /") }
        guard settings.access.allows(request) else {
            return .error(.unauthorized, "this console needs its access token (Authorization: Bearer, or ?access_token= once)")
        }
        switch path {
        case "/":
            if settings.access.required, let token = request.query["access_token"] {
                // The token moves into a cookie and out of the address bar (and of history).
                return HTTPResponse(status: .found, headers: [
                    ("Location", "/"),
                    ("Set-Cookie", "\(ConsoleAccess.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"),
                ])
            }
            return html(WebFiles.all["console.html"] ?? [])
        case "/api/config":
            var json = JSONText()
            json.raw("{\"map\":")
            writeMap(&json)
            json.raw(",\"staleMinutes\":")
            json.int(Int64(settings.staleMinutes))
            json.raw(",\"metrics\":")
            json.bool(metrics != nil)
            json.raw(",\"tracking\":")
            json.bool(settings.trackingSecret != nil)
            json.raw("}")
            return .json(json.bytes)
        case "/api/snapshot":
            let time = now()
            return .json(store.read { FleetJSON.snapshot($0, now: time) })
        case "/api/live":
            let last = request.header("last-event-id").flatMap { Int64($0) } ?? request.query["since"].flatMap { Int64($0) }
            if request.query["since"] != nil, last == nil { return .error(.badRequest, "since must be a number") }
            guard let stream = hub.stream(after: last) else {
                return .error(.serviceUnavailable, "too many live views open")
            }
            return HTTPResponse(status: .ok, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")],
                                body: .stream(stream))
        case "/metrics":
            return .text(.ok, metricsText(), type: "text/plain; version=0.0.4")
        case "/api/playback":
            return playbackRoute(request)
        case "/api/metrics":
            guard let metrics else { return .error(.notFound, "no --metrics-url given") }
            return .json(metrics.json())
        default:
            return .error(.notFound, "no such API: \(path.prefix(64))")
        }
    }

    /// `/api/playback?user=U&from=MS&to=MS`: the user's route, fixes written in that window (at most a day).
    private func playbackRoute(_ request: HTTPRequest) -> HTTPResponse {
        guard let playback else { return .error(.notFound, "playback is not enabled") }
        guard let user = request.query["user"], !user.isEmpty, user.utf8.count <= 256,
            let from = request.query["from"].flatMap({ Int64($0) }), let to = request.query["to"].flatMap({ Int64($0) }),
            from < to, to - from <= 86_400_000
        else { return .error(.badRequest, "give user, and from < to (ms since 1970) at most a day apart") }
        switch playback.read(user: user, from: from, to: to) {
        case .success(let (points, truncated)):
            let route = RoutePlayback.route(points)
            return .json(RoutePlayback.json(route, stops: RoutePlayback.stops(route), truncated: truncated))
        case .failure(.busy): return .error(.serviceUnavailable, "another playback is being read; try again")
        case .failure(.kafka): return .error(HTTPStatus(502, "Bad Gateway"), "reading the locations topic failed")
        }
    }

    /// The console's own counters, Prometheus text.
    func metricsText() -> String {
        let model = store.read { ($0.drivers.count, $0.recordsApplied, $0.recordsRejected) }
        var lines = [
            "# TYPE tripstream_console_drivers gauge", "tripstream_console_drivers \(model.0)",
            "# TYPE tripstream_console_records_applied_total counter", "tripstream_console_records_applied_total \(model.1)",
            "# TYPE tripstream_console_records_rejected_total counter", "tripstream_console_records_rejected_total \(model.2)",
            "# TYPE tripstream_console_live_streams gauge", "tripstream_console_live_streams \(hub.streamCount)",
            "# TYPE tripstream_console_live_resets_total counter", "tripstream_console_live_resets_total \(hub.resets)",
            "# TYPE tripstream_console_client_errors_total counter",
            "tripstream_console_client_errors_total \(counters.clientErrorResponses)",
            "# TYPE tripstream_console_tracking_refused_total counter",
            "tripstream_console_tracking_refused_total \(counters.trackingLinksRefused)",
        ].joined(separator: "\n") + "\n"
        lines += extraMetrics()
        return lines
    }

    /// A script or style sheet of the pages (`Sources/Console/Web`, embedded in the binary).
    private func asset(_ name: String) -> HTTPResponse {
        guard name.hasSuffix(".js") || name.hasSuffix(".css"), let file = WebFiles.file(name) else {
            return .error(.notFound, "no such asset")
        }
        return HTTPResponse(status: .ok, headers: [("Content-Type", file.type)], body: .bytes(file.bytes))
    }

    private func html(_ bytes: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/html; charset=utf-8")], body: .bytes(bytes))
    }

    // MARK: - Base map

    /// `{"tiles": template, "tilesMaxZoom": n, "tilesAttribution": text}`, nulls without a base map.
    func writeMap(_ json: inout JSONText) {
        json.raw("{\"tiles\":")
        json.optionalString(settings.tiles?.template)
        json.raw(",\"tilesMaxZoom\":")
        json.optionalInt(settings.tiles?.maxZoom.map(Int64.init))
        json.raw(",\"tilesAttribution\":")
        json.optionalString(settings.tiles?.attribution)
        json.raw("}")
    }

    /// `<z>/<x>/<y>.<format>` from the tiles file: the image, 204 where the file has none (the map shows its
    /// background there; not an error to count), 404 without a file or for another path.
    private func tile(_ path: Substring) -> HTTPResponse {
        guard case .file(let file) = settings.tiles else { return .error(.notFound, "no --tiles-file given") }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let dot = parts[2].firstIndex(of: "."), parts[2][parts[2].index(after: dot)...] == file.format.rawValue,
            let z = Self.tileNumber(parts[0]), let x = Self.tileNumber(parts[1]), let y = Self.tileNumber(parts[2][..<dot])
        else { return .error(.notFound, "tiles are /tiles/<z>/<x>/<y>.\(file.format.rawValue)") }
        do {
            guard let image = try file.tile(z: z, x: x, y: y) else { return HTTPResponse(status: HTTPStatus(204, "No Content")) }
            // A file's tiles do not change while the console runs.
            return HTTPResponse(status: .ok, headers: [("Content-Type", file.format.contentType),
                                                       ("Cache-Control", "public, max-age=3600")], body: .bytes(image))
        } catch {
            return .error(HTTPStatus(500, "Internal Server Error"), "the tiles file \(error)")
        }
    }

    /// A tile coordinate: 1 to 10 ASCII digits.
    static func tileNumber(_ text: Substring) -> Int? {
        guard (1...10).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(text)
    }

    // MARK: - Tracking

    /// The trip a token names, or the 4xx why not.
    func trackedTrip(_ tokenText: String) -> Result<(TripView, GeofenceView?), TrackingRefusal> {
        guard let secret = settings.trackingSecret else { return .failure(.disabled) }
        let token: TrackingToken
        do {
            token = try TrackingToken.verify(tokenText, secret: secret)
        } catch {
            counters.countTrackingRefusal()
            return .failure(error == .badSignature ? .badSignature : .malformed)
        }
        let time = now()
        let found: (TripView, GeofenceView?)? = store.read { model in
            guard let trip = model.trips[TripKey(user: token.user, trip: token.trip)] else { return nil }
            let fence = trip.destinationTag.flatMap { tag in
                trip.destinationExternalId.flatMap { model.geofences["\(tag)/\($0)"] }
            }
            return (trip, fence)
        }
        guard let (trip, fence) = found else { return .failure(.unknownTrip) }
        if let ended = trip.endedAt, time > ended + token.expiresAfterSeconds * 1000 { return .failure(.expired) }
        return .success((trip, fence))
    }

    private func trackingPage(_ token: String) -> HTTPResponse {
        switch trackedTrip(token) {
        case .success, .failure(.unknownTrip):
            // A trip not seen yet is not an error for its customer: the page says so and keeps asking.
            return html(WebFiles.all["tracking.html"] ?? [])
        case .failure(let refusal):
            return html(WebFiles.refusedPage(refusal.message), status: refusal.status)
        }
    }

    private func trackingData(_ token: String) -> HTTPResponse {
        switch trackedTrip(token) {
        case .success(let (trip, fence)): return .json(TrackingJSON.render(trip, destination: fence))
        case .failure(let refusal): return .error(refusal.status, refusal.message)
        }
    }
}
