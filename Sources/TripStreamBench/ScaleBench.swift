import CHeapStats
import CommandSupport
import Domain
import Foundation
import RocksDBIO
import Runtime
import Simulation

/// `tripstream-bench --geofence-table` and `--soak`: bounded growth. A geofence table of a million
/// circles and ten thousand polygons, with its memory; and a long fold of a large fleet whose
/// memory must stay flat once every user is known (history expiring behind a short horizon).
enum ScaleBench {
    // MARK: - Geofence table

    static func geofenceTable(circles: Int, polygons: Int) {
        var random = SeededRandom(seed: 7)
        let heapBefore = tripstream_heap_in_use()
        let rssBefore = HistoryBench.residentBytes()
        let started = WallClock.monotonic()
        var table = GeofenceTable()
        // Spread over Western Europe (about 2,000 × 2,600 km): a city's density where they cluster.
        func point() -> Coordinate {
            Coordinate(latitude: 36 + Double.random(in: 0..<1, using: &random) * 24, longitude: -10 + Double.random(in: 0..<1, using: &random) * 40)
        }
        table.loadingInBulk { table in
            for index in 0..<circles {
                table.upsert(Geofence(tag: "stop", externalId: "c\(index)",
                                      shape: .circle(center: point(), radius: 50 + Double.random(in: 0..<1, using: &random) * 250)))
            }
            for index in 0..<polygons {
                let c = point()
                let d = 0.001 + Double.random(in: 0..<1, using: &random) * 0.01
                let ring = [(0.0, -d), (d, 0), (0, d), (-d, 0), (0, -d)].map {
                    Coordinate(latitude: c.latitude + $0.0, longitude: c.longitude + $0.1)
                }
                table.upsert(Geofence(tag: "zone", externalId: "p\(index)", shape: .polygon(rings: [ring])))
            }
        }
        let loadSeconds = WallClock.monotonic() - started
        let heap = Int(tripstream_heap_in_use()) - Int(heapBefore)
        let rss = HistoryBench.residentBytes() - rssBefore
        // Lookups at random points, to show the index answers without scanning.
        var candidates = 0
        let lookups = 200_000
        let lookupStart = WallClock.monotonic()
        for _ in 0..<lookups { table.forEachCandidate(at: point()) { _, _ in candidates += 1 } }
        let lookupSeconds = WallClock.monotonic() - lookupStart
        let total = circles + polygons
        Terminal.output("geofence table  \(total.grouped) geofences (\(circles.grouped) circles, \(polygons.grouped) polygons) loaded in \(String(format2: loadSeconds)) s")
        Terminal.output("  memory        heap \(heap / 1_000_000) MB (\(heap / max(total, 1)) B per geofence), resident \(rss / 1_000_000) MB")
        Terminal.output("  lookups       \(Int(Double(lookups) / lookupSeconds).grouped) points/s, \(String(format2: Double(candidates) / Double(lookups))) candidates per point")
        withExtendedLifetime(table) {}
    }

    // MARK: - Soak

    /// Folds `users` users, each sending a fix every 15 s of event time, as fast as the fold goes,
    /// for `minutes` of wall time, with a 30 min horizon; prints memory every 30 s.
    static func soak(users: Int, minutes: Double, workDirectory: String) throws {
        try ReplayJob.makeDirectory(workDirectory)
        var settings = FoldSettings()
        settings.replayHorizon = 30 * 60_000
        let store = try RocksHistoryStore(directory: workDirectory + "/soak-history", fresh: true, recordsChanges: false)
        defer { store.close() }
        var fold = PartitionFold(settings: settings, history: store)
        let table = GeofenceTable()
        let userIds = (0..<users).map { "driver-\($0)" }
        var events: [Event] = []
        let started = WallClock.monotonic()
        var nextReport = started
        var round = 0
        var fixes = 0
        Terminal.output("soak            \(users.grouped) users, a fix every 15 s each, horizon 30 min, \(String(format1: minutes)) min")
        while WallClock.monotonic() - started < minutes * 60 {
            let time = HistoryBench.t0 + UnixMillis(round) * HistoryBench.fixInterval
            for user in 0..<users {
                let fix = Fix(userId: userIds[user], createdAt: time,
                              position: HistoryBench.position(user: user, step: round), accuracy: 8, speed: 10)
                _ = fold.process(fix, geofences: table, processingTime: time, events: &events)
                events.removeAll(keepingCapacity: true)
                fixes += 1
                if user % 20_000 == 19_999 { try store.commit() }
            }
            try store.commit()
            round += 1
            let now = WallClock.monotonic()
            if now >= nextReport {
                nextReport = now + 30
                let rss = HistoryBench.residentBytes()
                let heap = Int(tripstream_heap_in_use())
                let sst = Int(store.database.property("rocksdb.total-sst-files-size") ?? "0") ?? 0
                Terminal.output("  t+\(Int(now - started))s".padded(10) + "event time +\(round * 15 / 60) min, \(fixes.grouped) fixes, RSS \(rss / 1_000_000) MB, heap \(heap / 1_000_000) MB, history on disk \(sst / 1_000_000) MB, \(fold.userCount.grouped) users")
            }
        }
        let seconds = WallClock.monotonic() - started
        Terminal.output("  done          \(fixes.grouped) fixes in \(Int(seconds)) s (\(Int(Double(fixes) / seconds).grouped) fixes/s), \(round) rounds = \(round * 15 / 60) min of event time")
    }
}
