import CommandSupport
import Domain
import Simulation
import enum Runtime.WallClock

#if canImport(Glibc)
import Glibc
#endif

/// `tripstream-bench --lookup-sweep`: what one spatial lookup costs at 10k, 100k and 1M geofences
/// at equal density (the dense city's 10,000 per 13 × 10 km, the area grown with the count), so a
/// lookup's cost can be seen to stay flat as the table grows: one point at a time, each lookup
/// waiting for its own cache misses, and as the replay asks, each level of the next lookups loaded ahead.
enum LookupSweep {
    static func run(base: SimulationSettings, counts: [Int], lookups: Int) {
        for count in counts {
            var settings = base
            settings.users = 0
            settings.geofences = count
            let area = (base.cityArea ?? CityArea(eastWest: 13_000, northSouth: 10_000))
                .scaled(by: Double(count) / Double(max(base.geofences, 1)))
            settings.cityArea = area
            let started = WallClock.monotonic()
            let table = GeofenceTable(FleetSimulator(settings: settings).geofences)
            let built = WallClock.monotonic() - started
            // Query points spread over the same area, drawn once so the timing is the lookups alone.
            var random = SeededRandom(seed: 7)
            let metersPerLng = Geodesy.metersPerDegree * cos(settings.cityCenter.latitude * Double.pi / 180)
            let points = (0..<lookups).map { _ in
                Coordinate(
                    latitude: settings.cityCenter.latitude
                        + Double.random(in: -0.5...0.5, using: &random) * area.northSouth / Geodesy.metersPerDegree,
                    longitude: settings.cityCenter.longitude
                        + Double.random(in: -0.5...0.5, using: &random) * area.eastWest / metersPerLng)
            }
            // Timed: the fold's question, which geofences hold the point (`forEachContaining`), asked
            // one point at a time, and as the replay asks it, each level of each lookup loaded ahead
            // (`prefetchLookup`) as many points before as the replay's stages. Alternated per round.
            let stages = PartitionFold.PrefetchStage.allCases
            let ahead = stages.map(\.distance).max() ?? 0
            var seconds: [[Double]] = [[], []]
            var cpuSeconds: [[Double]] = [[], []]
            var inside = 0
            for _ in 0..<3 {
                for lookingAhead in [false, true] {
                    inside = 0
                    let start = WallClock.monotonic(), cpuStart = threadCPUSeconds()
                    for index in points.indices {
                        if lookingAhead {
                            for stage in stages where index + stage.distance < points.count {
                                guard let lookupStage = stage.lookupStage else { continue }
                                table.prefetchLookup(points[index + stage.distance], stage: lookupStage)
                            }
                        }
                        table.forEachContaining(points[index]) { _, _, _, _, _ in inside += 1 }
                    }
                    seconds[lookingAhead ? 1 : 0].append(WallClock.monotonic() - start)
                    cpuSeconds[lookingAhead ? 1 : 0].append(threadCPUSeconds() - cpuStart)
                }
            }
            var candidates = 0  // bounding boxes holding the point, counted apart from the timing
            for point in points { table.forEachCandidate(at: point) { _, _ in candidates += 1 } }
            func nanoseconds(_ runs: [Double]) -> Int { Int(runs.sorted()[1] / Double(lookups) * 1e9) }
            Terminal.output(
                "lookup          \(count.grouped) geofences over \(Int(area.eastWest / 1000)) × \(Int(area.northSouth / 1000)) km: "
                    + "\(nanoseconds(seconds[0])) ns per lookup one at a time, \(nanoseconds(seconds[1])) ns looking "
                    + "up to \(ahead) ahead as the replay does (medians of 3 × \(lookups.grouped); "
                    + "\(nanoseconds(cpuSeconds[0])) and \(nanoseconds(cpuSeconds[1])) ns of this thread's CPU time), "
                    + "\(String(format1: Double(candidates) / Double(lookups))) candidates and "
                    + "\(String(format1: Double(inside) / Double(lookups))) containing geofences per point; table built in "
                    + "\(String(format1: built)) s")
        }
    }

    /// This thread's CPU time: on a machine shared with other builds, it leaves out the time the
    /// thread waited for a core, which the wall clock does not.
    private static func threadCPUSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
