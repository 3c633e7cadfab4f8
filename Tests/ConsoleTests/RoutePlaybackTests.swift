import HTTPServing
import Foundation
import Testing

@testable import Console

@Suite struct RoutePlaybackTests {
    /// A drive east, a 5-minute stop, a short pause (under the dwell), a drive on.
    func drive() -> [PlaybackPoint] {
        var points: [PlaybackPoint] = []
        var time: Int64 = 1_000_000
        var longitude = 10.0
        for _ in 0..<10 {  // ~85 m per 10 s at 45° N: 8.5 m/s
            points.append(PlaybackPoint(time: time, longitude: longitude, latitude: 45))
            longitude += 0.0011
            time += 10_000
        }
        for _ in 0..<31 {  // 300 s within a few meters
            points.append(PlaybackPoint(time: time, longitude: longitude + 0.00001, latitude: 45.00001))
            time += 10_000
        }
        for _ in 0..<5 {
            longitude += 0.0011
            points.append(PlaybackPoint(time: time, longitude: longitude, latitude: 45))
            time += 10_000
        }
        for _ in 0..<6 {  // 50 s: too short to be a stop
            points.append(PlaybackPoint(time: time, longitude: longitude, latitude: 45))
            time += 10_000
        }
        return points
    }

    @Test func routeIsOrderedDeduplicatedWithSpeeds() {
        var points = drive()
        points.append(points[3])  // a duplicate
        points.reverse()
        let route = RoutePlayback.route(points)
        #expect(route.count == drive().count)
        #expect(route.map(\.time) == drive().map(\.time))
        #expect(route.allSatisfy { $0.speed != nil })
        #expect(abs(route[5].speed! - 8.65) < 0.1)
        #expect(route[20].speed! < 0.2)
    }

    @Test func stopsAreRunsLongerThanTheDwell() {
        let stops = RoutePlayback.stops(RoutePlayback.route(drive()))
        #expect(stops.count == 1)
        #expect(stops[0].dwellMilliseconds >= 300_000 && stops[0].dwellMilliseconds <= 310_000)
        #expect(abs(stops[0].latitude - 45) < 0.0001)
        #expect(RoutePlayback.stops([]).isEmpty)
    }

    @Test func theRouteAnswersFromItsSourceAndRefusesBadWindows() throws {
        let source = PlaybackSource { user, from, to in
            #expect(user == "u 1" && from == 5 && to == 600_000)
            return (points: drive(), truncated: false)
        }
        let routes = ConsoleRoutes(store: FleetStore(topics: Fixtures.topics), hub: LiveHub(), metrics: nil,
                                   settings: ConsoleSettings(), playback: source, now: { 0 })
        func get(_ target: String) -> (Int, [UInt8]) {
            guard case .request(let request, _) = HTTPRequestParser.parse(Array("GET \(target) HTTP/1.1\r\n\r\n".utf8))
            else { return (0, []) }
            let response = routes.respond(request)
            guard case .bytes(let bytes) = response.body else { return (response.status.code, []) }
            return (response.status.code, bytes)
        }
        let (status, body) = get("/api/playback?user=u+1&from=5&to=600000")
        #expect(status == 200)
        let route = try JSONSerialization.jsonObject(with: Data(body)) as! [String: Any]
        #expect((route["points"] as! [Any]).count == drive().count)
        #expect((route["stops"] as! [Any]).count == 1)
        for bad in ["/api/playback?user=u&from=5", "/api/playback?from=1&to=2", "/api/playback?user=u&from=9&to=2",
                    "/api/playback?user=u&from=0&to=90000000", "/api/playback?user=u&from=x&to=2"]
        {
            #expect(get(bad).0 == 400)
        }
    }

    @Test func fixesDecodeFromEitherShapeAsTheServiceReadsThem() {
        let flat = PlaybackReader.decode(Array("{\"userId\":\"u\",\"createdAt\":\"2026-05-12T14:31:00.250+02:00\",\"latitude\":40.7,\"longitude\":-73.9,\"speed\":1.5}".utf8))
        #expect(flat == PlaybackPoint(time: 1_778_589_060_250, longitude: -73.9, latitude: 40.7, speed: 1.5))
        let geo = PlaybackReader.decode(Array("{\"userId\":\"u\",\"createdAt\":\"2026-05-12T14:31:00Z\",\"location\":{\"type\":\"Point\",\"coordinates\":[1,2]}}".utf8))
        #expect(geo == PlaybackPoint(time: 1_778_596_260_000, longitude: 1, latitude: 2))
        // What the service dead-letters is no point of a route: no time, off the globe, not JSON, too large.
        for bad in ["{\"userId\":\"u\",\"createdAt\":\"bad\",\"latitude\":1,\"longitude\":1}",
                    "{\"userId\":\"u\",\"createdAt\":\"2026-05-12T14:31:00Z\",\"latitude\":100,\"longitude\":1}",
                    "{\"latitude\":1,\"longitude\":1", "[1,2]", "{\"userId\":\"u\",\"pad\":\"" + String(repeating: "x", count: 70_000) + "\"}"]
        {
            #expect(PlaybackReader.decode(Array(bad.utf8)) == nil, "\(bad.prefix(80))")
        }
    }
}
