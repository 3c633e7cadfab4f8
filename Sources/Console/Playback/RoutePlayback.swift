#if canImport(Glibc)
import Glibc
#endif

/// A user's route for playback: the fixes in event-time order, speeds, and stops with their dwell. Pure.
public enum RoutePlayback {
    public static let stopRadius = 50.0
    public static let minimumDwell: Int64 = 120_000

    /// `points` in time order, one per time, each with a speed.
    public static func route(_ points: [PlaybackPoint]) -> [PlaybackPoint] {
        var sorted = points.sorted { $0.time < $1.time }
        var out: [PlaybackPoint] = []
        out.reserveCapacity(sorted.count)
        for index in sorted.indices {
            if let last = out.last, last.time == sorted[index].time { continue }  // a duplicate fix
            if sorted[index].speed == nil, let last = out.last {
                let seconds = Double(sorted[index].time - last.time) / 1000
                sorted[index].speed = meters(last, sorted[index]) / seconds
            }
            out.append(sorted[index])
        }
        if out.count > 1, out[0].speed == nil { out[0].speed = out[1].speed }
        return out
    }

    /// Stops along time-ordered `points`: runs that stay within `radius` meters of their first fix for at least
    /// `minimumDwell` ms, at their fixes' mean position.
    public static func stops(_ points: [PlaybackPoint], radius: Double = stopRadius, minimumDwell: Int64 = minimumDwell)
        -> [PlaybackStop]
    {
        var stops: [PlaybackStop] = []
        var start = 0
        func close(_ end: Int) {
            guard end > start, points[end - 1].time - points[start].time >= minimumDwell else { return }
            let run = points[start..<end]
            stops.append(PlaybackStop(longitude: run.map(\.longitude).reduce(0, +) / Double(run.count),
                                      latitude: run.map(\.latitude).reduce(0, +) / Double(run.count),
                                      start: points[start].time, end: points[end - 1].time))
        }
        for index in points.indices where meters(points[start], points[index]) > radius {
            close(index)
            start = index
        }
        close(points.count)
        return stops
    }

    /// Great-circle distance (haversine, mean Earth radius).
    static func meters(_ a: PlaybackPoint, _ b: PlaybackPoint) -> Double {
        let radians = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * radians
        let dLon = (b.longitude - a.longitude) * radians
        let h = sin(dLat / 2) * sin(dLat / 2)
            + cos(a.latitude * radians) * cos(b.latitude * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
    }

    /// `{points: [[t, lon, lat, speed]], stops: [[lon, lat, start, end]], truncated}`.
    static func json(_ points: [PlaybackPoint], stops: [PlaybackStop], truncated: Bool) -> [UInt8] {
        var json = JSONText(capacity: points.count * 40 + 64)
        json.raw("{\"points\":[")
        for (index, point) in points.enumerated() {
            if index > 0 { json.raw(",") }
            json.raw("[")
            json.int(point.time)
            json.raw(",")
            json.number(point.longitude)
            json.raw(",")
            json.number(point.latitude)
            json.raw(",")
            json.optionalNumber(point.speed, decimals: 2)
            json.raw("]")
        }
        json.raw("],\"stops\":[")
        for (index, stop) in stops.enumerated() {
            if index > 0 { json.raw(",") }
            json.raw("[")
            json.number(stop.longitude)
            json.raw(",")
            json.number(stop.latitude)
            json.raw(",")
            json.int(stop.start)
            json.raw(",")
            json.int(stop.end)
            json.raw("]")
        }
        json.raw("],\"truncated\":")
        json.bool(truncated)
        json.raw("}")
        return json.bytes
    }
}
