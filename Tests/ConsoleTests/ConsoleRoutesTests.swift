import HTTPServing
import Foundation
import Testing

@testable import Console

@Suite struct ConsoleRoutesTests {
    static let secret = Array("routes test secret, long enough".utf8)
    static let tripEnd: Int64 = 1_000_000

    /// Two users on trips and one idle; u2's trip ended at `tripEnd` (Kafka time).
    func routes(access: String? = nil, secret: [UInt8]? = ConsoleRoutesTests.secret, now: Int64 = 2_000_000)
        -> ConsoleRoutes
    {
        let store = FleetStore(topics: Fixtures.topics)
        store.update { model in
            Fixtures.apply(&model, Fixtures.topics.geofences, key: "store/store-1", Fixtures.circle)
            for (second, lat) in [(1, 41.14), (2, 41.141), (3, 41.142)] {
                Fixtures.apply(&model, Fixtures.topics.users, key: "u1",
                               Fixtures.userState("u1", lon: -8.61, lat: lat, fix: "2026-05-12T14:30:0\(second).000Z",
                                                  trip: "trip-a"))
            }
            Fixtures.apply(&model, Fixtures.topics.users, key: "u2",
                           Fixtures.userState("u2", lon: -8.7, lat: 41.2, fix: "2026-05-12T14:30:01.000Z", trip: "trip-b"))
            Fixtures.apply(&model, Fixtures.topics.tripSummaries, key: "u2", Fixtures.summary("u2", trip: "trip-b"),
                           at: Self.tripEnd)
            Fixtures.apply(&model, Fixtures.topics.users, key: "u2",
                           Fixtures.userState("u2", lon: -8.9, lat: 41.3, fix: "2026-05-12T14:50:01.000Z"), at: Self.tripEnd + 1)
            Fixtures.apply(&model, Fixtures.topics.users, key: "u3",
                           Fixtures.userState("u3", lon: -8.65, lat: 41.16, fix: "2026-05-12T14:30:01.000Z"))
            Fixtures.apply(&model, Fixtures.topics.events, key: "u3", Fixtures.event("u3", type: "user.entered_geofence"))
        }
        var settings = ConsoleSettings()
        settings.trackingSecret = secret
        settings.access = ConsoleAccess(token: access)
        return ConsoleRoutes(store: store, hub: LiveHub(), metrics: nil, settings: settings, now: { now })
    }

    func get(_ routes: ConsoleRoutes, _ target: String, headers: [(name: String, value: String)] = [])
        -> (status: Int, body: String, response: HTTPResponse)
    {
        let text = "GET \(target) HTTP/1.1\r\n" + headers.map { "\($0.name): \($0.value)\r\n" }.joined() + "\r\n"
        guard case .request(let request, _) = HTTPRequestParser.parse(Array(text.utf8)) else {
            Issue.record("\(target) did not parse")
            return (0, "", HTTPResponse(status: .badRequest))
        }
        let response = routes.respond(request)
        guard case .bytes(let bytes) = response.body else { return (response.status.code, "", response) }
        return (response.status.code, String(decoding: bytes, as: UTF8.self), response)
    }

    func link(user: String, trip: String, seconds: Int64 = 600, secret: [UInt8] = ConsoleRoutesTests.secret) -> String {
        TrackingToken(user: user, trip: trip, expiresAfterSeconds: seconds).encoded(secret: secret)
    }

    @Test func servesThePageAssetsAndSnapshot() throws {
        let routes = routes()
        #expect(get(routes, "/").body.contains("<canvas id=\"map\">"))
        #expect(get(routes, "/assets/console.js").status == 200)
        #expect(get(routes, "/assets/map.js").status == 200)
        #expect(get(routes, "/assets/nothing.js").status == 404)
        #expect(get(routes, "/healthz").status == 200)
        let snapshot = try JSONSerialization.jsonObject(with: Data(get(routes, "/api/snapshot").body.utf8)) as! [String: Any]
        let drivers = snapshot["drivers"] as! [[Any]]
        #expect(Set(drivers.map { $0[0] as! String }) == ["u1", "u2", "u3"])
        #expect((snapshot["trips"] as! [[String: Any]]).map { $0["trip"] as! String } == ["trip-a"])  // active only
        #expect((snapshot["geofences"] as! [Any]).count == 1)
        #expect((snapshot["events"] as! [Any]).count == 1)
    }

    @Test func refusesWhatItDoesNotServe() {
        let routes = routes()
        #expect(get(routes, "/etc/passwd").status == 404)
        #expect(get(routes, "/api/nothing").status == 404)
        #expect(get(routes, "/api/live?since=abc").status == 400)
        guard case .request(let post, _) = HTTPRequestParser.parse(Array("DELETE / HTTP/1.1\r\n\r\n".utf8)) else { return }
        #expect(routes.respond(post).status == .methodNotAllowed)
    }

    @Test func theLiveRouteStreams() {
        let response = get(routes(), "/api/live?since=0").response
        #expect(response.status == .ok)
        #expect(response.headers.contains { $0 == ("Content-Type", "text/event-stream") })
        guard case .stream = response.body else { Issue.record("not a stream"); return }
    }

    @Test func anAccessTokenGuardsTheConsoleButNotTheTrackingPages() {
        let token = "0123456789abcdef-token"
        let routes = routes(access: token)
        #expect(get(routes, "/").status == 401)
        #expect(get(routes, "/api/snapshot").status == 401)
        #expect(get(routes, "/api/snapshot", headers: [("Authorization", "Bearer wrong-token-0123456")]).status == 401)
        #expect(get(routes, "/api/snapshot", headers: [("Authorization", "Bearer \(token)")]).status == 200)
        #expect(get(routes, "/api/live", headers: [("Cookie", "x=1; tripstream_console=\(token)")]).status == 200)
        let login = get(routes, "/?access_token=\(token)")
        #expect(login.status == 302)
        #expect(login.response.headers.contains { $0.name == "Set-Cookie" && $0.value.contains("HttpOnly") })
        #expect(get(routes, "/api/track/" + link(user: "u1", trip: "trip-a")).status == 200)
    }

    @Test func aTrackingLinkShowsItsTripAndNoUser() throws {
        let routes = routes()
        let token = link(user: "u1", trip: "trip-a")
        #expect(get(routes, "/track/" + token).status == 200)
        let data = get(routes, "/api/track/" + token)
        #expect(data.status == 200)
        for name in ["u1", "u2", "u3", "trip-b"] { #expect(!data.body.contains("\"\(name)\"")) }
        let trip = try JSONSerialization.jsonObject(with: Data(data.body.utf8)) as! [String: Any]
        #expect(trip["trip"] as? String == "trip-a")
        #expect(trip["eta"] as? Double == 7.5)
        #expect(trip["etaLow"] as? Double == 6)
        #expect((trip["track"] as! [Any]).count == 3)
        #expect((trip["position"] as! [Double])[1] == 41.142)
        #expect((trip["destination"] as! [String: Any])["description"] as? String == "Store 1")
    }

    @Test func anEndedTripShowsNoPositionAndExpires() throws {
        let token = link(user: "u2", trip: "trip-b", seconds: 600)
        let during = get(routes(now: Self.tripEnd + 599_000), "/api/track/" + token)
        #expect(during.status == 200)
        let trip = try JSONSerialization.jsonObject(with: Data(during.body.utf8)) as! [String: Any]
        #expect(trip["ended"] as? Bool == true)
        #expect(trip["arrived"] as? Bool == true)
        #expect(trip["position"] is NSNull)
        #expect(!during.body.contains("-8.9"))  // where the driver went after the trip
        #expect(get(routes(now: Self.tripEnd + 601_000), "/api/track/" + token).status == 410)
        #expect(get(routes(now: Self.tripEnd + 601_000), "/track/" + token).status == 410)
    }

    @Test func badLinksGet4xx() {
        let routes = routes()
        let token = link(user: "u1", trip: "trip-a")
        var tampered = Array(token)
        tampered[tampered.count - 3] = tampered[tampered.count - 3] == "A" ? "B" : "A"
        #expect(get(routes, "/api/track/" + String(tampered)).status == 403)
        #expect(get(routes, "/track/" + String(tampered)).status == 403)
        #expect(get(routes, "/api/track/" + link(user: "u2", trip: "trip-a")).status == 404)  // u2 has no trip-a
        #expect(get(routes, "/api/track/" + link(user: "u1", trip: "trip-a", secret: Array("other secret, 16 bytes+".utf8))).status == 403)
        #expect(get(routes, "/api/track/garbage").status == 400)
        #expect(get(routes, "/api/track/").status == 400)
        #expect(get(routes, "/track/%2e%2e%2f").status == 400)
        #expect(get(self.routes(secret: nil), "/api/track/" + token).status == 404)
        let metrics = get(routes, "/metrics").body
        // Tokens refused: 3 with a bad signature, 3 malformed; 4xx answers: those, and the trip u2 does not have.
        #expect(metrics.contains("tripstream_console_tracking_refused_total 6\n"))
        #expect(metrics.contains("tripstream_console_client_errors_total 7\n"))
        #expect(metrics.contains("tripstream_console_drivers 3\n"))
    }

    /// README said a tampered token gets 403, yet a new last character got 400 (its MAC no longer decoded):
    /// now every change that keeps a token's shape is 403, and only text that is no token at all is 400.
    @Test func aTamperedLastCharacterIs403AndNoTokenIs400() {
        let routes = routes()
        let token = link(user: "u1", trip: "trip-a")
        #expect(get(routes, "/api/track/" + token).status == 200)
        for replacement in ["A", "B", "Q", "g", "9", "-", "_"] where !token.hasSuffix(replacement) {
            let tampered = token.dropLast() + replacement
            #expect(get(routes, "/api/track/" + tampered).status == 403, "\(tampered)")
            #expect(get(routes, "/track/" + tampered).status == 403, "\(tampered)")
        }
        #expect(get(routes, "/api/track/" + token.dropLast()).status == 403)
        #expect(get(routes, "/api/track/" + token + "A").status == 403)
        #expect(get(routes, "/api/track/" + token + ".A").status == 400)
        #expect(get(routes, "/api/track/" + token.replacingOccurrences(of: "v2.", with: "v9.")).status == 400)
    }

    /// A correctly signed link to a trip the read model does not know says so, and does not claim the trip has
    /// not started yet: the model cannot tell that from a trip that never existed.
    @Test func aSignedLinkToAnUnknownTripSaysItIsUnknown() {
        let routes = routes()
        let data = get(routes, "/api/track/" + link(user: "nobody", trip: "no-such-trip"))
        #expect(data.status == 404)
        #expect(data.body.contains("unknown"))
        #expect(!data.body.contains("has not started yet"))
        // The page itself loads and keeps asking, so a trip that does start appears.
        #expect(get(routes, "/track/" + link(user: "nobody", trip: "no-such-trip")).status == 200)
    }
}
