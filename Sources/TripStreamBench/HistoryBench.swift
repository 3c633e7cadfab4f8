import CHeapStats
import CommandSupport
import Domain
import Foundation
import RocksDBIO
import Runtime

/// `tripstream-bench --history`: what a replay horizon costs. Memory and disk of users holding an
/// hour of 15 s fixes, the cost of placing a 2 h offline buffer delivered 30 min late, and restore
/// time from the changelog alone and from a local store, in one run.
struct HistoryBench {
    let users: Int
    let minutes: Int
    let workDirectory: String

    static let fixInterval: UnixMillis = 15_000
    static let t0: UnixMillis = 1_780_000_000_000

    func run() throws {
        Terminal.output("history         \(users.grouped) users, \(minutes) min of a fix every 15 s each (\((users * minutes * 4).grouped) fixes)")
        try ReplayJob.makeDirectory(workDirectory)
        let (changelog, hot, storedInputs) = try memoryAndDisk()
        try lateBuffer()
        try restore(changelog: changelog, hotParts: hot, storedInputs: storedInputs)
    }

    /// A user's position at a step: a slow random-looking walk around Porto, per user.
    static func position(user: Int, step: Int) -> Coordinate {
        let phase = Double(user &* 7919 % 10_000) / 10_000
        let angle = Double(step) * 0.05 + phase * 6.28
        return Coordinate(latitude: 41.15 + 0.02 * sin(angle) + phase * 0.01,
                          longitude: -8.61 + 0.02 * cos(angle * 0.7) - phase * 0.01)
    }

    // MARK: - Memory and disk

    /// Folds every user's hour in time order, committing the store as the runtime does per
    /// transaction, and measures memory and disk; then folds it again keeping the changelog the run
    /// would have written (compacted: the latest record per key) for the restore measurement.
    func memoryAndDisk() throws -> (changelog: [(key: [UInt8], value: [UInt8]?)], hot: [UserTimeline.Parts], storedInputs: Int) {
        _ = try fold(directory: workDirectory + "/history-memory", measure: true)
        return try fold(directory: workDirectory + "/history-local", measure: false)
    }

    func fold(directory: String, measure: Bool) throws
        -> (changelog: [(key: [UInt8], value: [UInt8]?)], hot: [UserTimeline.Parts], storedInputs: Int)
    {
        let userIds = (0..<users).map { "driver-\($0)" }
        let rssBefore = Self.residentBytes()
        let heapBefore = tripstream_heap_in_use()
        let store = try RocksHistoryStore(directory: directory, fresh: true, recordsChanges: !measure)
        var fold = PartitionFold(settings: FoldSettings(), history: store)
        let table = GeofenceTable()
        var events: [Event] = []
        var changelog: [[UInt8]: [UInt8]?] = [:]
        let steps = minutes * 4
        let started = WallClock.monotonic()
        for step in 0..<steps {
            let time = Self.t0 + UnixMillis(step) * Self.fixInterval
            for user in 0..<users {
                let fix = Fix(userId: userIds[user], createdAt: time, position: Self.position(user: user, step: step),
                              accuracy: 8, speed: 10)
                _ = fold.process(fix, geofences: table, processingTime: time, events: &events)
                events.removeAll(keepingCapacity: true)
            }
            for change in store.takeChanges() { changelog[change.key] = change.value }
            try store.commit()
        }
        let foldSeconds = WallClock.monotonic() - started
        let rssAfter = Self.residentBytes()
        let heapAfter = tripstream_heap_in_use()
        let timelines = fold.allTimelines()
        let hotInputs = timelines.reduce(0) { $0 + $1.hotInputCount }
        let storedInputs = users * steps - hotInputs
        let segments = timelines.reduce(0) { $0 + $1.storedSegmentCount }
        try store.synchronize()
        guard measure else {
            var hot: [UserTimeline.Parts] = []
            hot.reserveCapacity(users)
            for timeline in fold.takeTouchedTimelines() {
                hot.append(timeline.parts)
                changelog[Array(timeline.userId.utf8)] = TimelineCodec.encode(timeline.parts)
            }
            store.close()
            return (changelog.map { ($0.key, $0.value) }.sorted { $0.key.lexicographicallyPrecedes($1.key) }, hot,
                    storedInputs)
        }
        try store.database.compactAll()
        let sst = Int(store.database.property("rocksdb.total-sst-files-size") ?? "0") ?? 0
        let onDisk = Self.directoryBytes(directory)
        Terminal.output("  in order      \(Int(Double(users * steps) / foldSeconds).grouped) fixes/s through the fold with RocksDB history")
        Terminal.output("  memory        \((rssAfter - rssBefore) / users) B resident growth per user (RSS, everything: hot state, RocksDB buffers and cache); heap \((Int(heapAfter) - Int(heapBefore)) / users) B per user")
        Terminal.output("  hot inputs    \(String(format1: Double(hotInputs) / Double(users))) per user on the heap; \(storedInputs.grouped) inputs in \(segments.grouped) stored segments")
        Terminal.output("  disk          \(String(format1: Double(sst) / Double(max(storedInputs, 1)))) B per stored input in SST files after compaction (\(String(format1: Double(onDisk) / Double(max(storedInputs, 1)))) B with logs and metadata, \(onDisk / 1_000_000) MB)")
        withExtendedLifetime(fold) {}
        store.close()
        return ([], [], storedInputs)
    }

    // MARK: - A late buffer

    /// Users with 30 min of history, offline for 2 h, live for 30 min after reconnecting; then each
    /// user's 2 h buffer arrives in one batch.
    func lateBuffer() throws {
        let bufferUsers = max(min(users / 10, 2_000), 10)
        let directory = workDirectory + "/history-late"
        let store = try RocksHistoryStore(directory: directory, fresh: true, recordsChanges: true)
        defer { store.close() }
        var fold = PartitionFold(settings: FoldSettings(), history: store)
        let table = GeofenceTable([Geofence(tag: "store", externalId: "g1", description: "store",
                                            shape: .circle(center: Self.position(user: 0, step: 300), radius: 150),
                                            dwellThreshold: 5)])
        var events: [Event] = []
        let userIds = (0..<bufferUsers).map { "late-\($0)" }
        func fix(_ user: Int, _ step: Int, replayed: Bool) -> Fix {
            Fix(userId: userIds[user], createdAt: Self.t0 + UnixMillis(step) * Self.fixInterval,
                position: Self.position(user: user, step: step), accuracy: 8, replayed: replayed)
        }
        let before = 0..<120, gap = 120..<600, after = 600..<720
        var inOrder = 0
        let inOrderStart = WallClock.monotonic()
        for step in Array(before) + Array(after) {
            for user in 0..<bufferUsers {
                _ = fold.process(fix(user, step, replayed: false), geofences: table,
                                 processingTime: Self.t0 + UnixMillis(step) * Self.fixInterval, events: &events)
                inOrder += 1
            }
            try store.commit()
            _ = store.takeChanges()
        }
        let inOrderSeconds = WallClock.monotonic() - inOrderStart
        events.removeAll()
        let now = Self.t0 + UnixMillis(after.upperBound) * Self.fixInterval
        let lateStart = WallClock.monotonic()
        for user in 0..<bufferUsers {
            for step in gap { _ = fold.process(fix(user, step, replayed: true), geofences: table, processingTime: now, events: &events) }
        }
        fold.settle(geofences: table, processingTime: now, events: &events)
        let changes = store.takeChanges().count
        try store.commit()
        let lateSeconds = WallClock.monotonic() - lateStart
        let buffered = bufferUsers * gap.count
        let refolded = fold.counters.refoldedInputs
        Terminal.output("  late buffer   \(bufferUsers.grouped) users each get a 2 h buffer (480 fixes) 30 min late: \(fold.counters.rewinds.grouped) refolds, \(String(format1: Double(refolded) / Double(buffered))) refolded inputs per buffered fix, \(changes.grouped) history records rewritten")
        Terminal.output("  late cost     \(String(format1: lateSeconds / Double(buffered) * 1e6)) µs per buffered fix, \(Int(lateSeconds / Double(refolded) * 1e9)) ns per refolded input; in order \(Int(inOrderSeconds / Double(inOrder) * 1e9)) ns per fix (ratio \(String(format1: (lateSeconds / Double(refolded)) / (inOrderSeconds / Double(inOrder))))×)")
        Terminal.output("  late events   \(events.count.grouped) published (new, corrected, retracted)")
    }

    // MARK: - Restore

    func restore(changelog: [(key: [UInt8], value: [UInt8]?)], hotParts: [UserTimeline.Parts], storedInputs: Int) throws {
        let table = GeofenceTable()
        // From the changelog alone: an empty local store rebuilt from every record.
        let fresh = workDirectory + "/history-restored"
        var started = WallClock.monotonic()
        let rebuilt = try RocksHistoryStore(directory: fresh, fresh: true, recordsChanges: true)
        var restore = PartitionRestore(snapshot: nil, history: rebuilt)
        for record in changelog { restore.apply(key: record.key, value: record.value) }
        var fold = PartitionFold(settings: FoldSettings(), history: rebuilt)
        try restore.install(into: &fold, geofences: table)
        let fromChangelog = WallClock.monotonic() - started
        let bytes = changelog.reduce(0) { $0 + $1.key.count + ($1.value?.count ?? 0) }
        rebuilt.close()
        // From a local store: the snapshot file (hot parts) over the RocksDB the first run left.
        let snapshot = PartitionSnapshot(partition: 0, changelogOffset: Int64(changelog.count),
                                         checkpoint: PartitionCheckpoint(locationsOffset: 0, commandsOffset: 0, streamTime: 0),
                                         timelines: hotParts)
        try snapshot.write(directory: workDirectory)
        started = WallClock.monotonic()
        let local = try RocksHistoryStore(directory: workDirectory + "/history-local", fresh: false, recordsChanges: true)
        let read = try PartitionSnapshot.read(directory: workDirectory, partition: 0)
        let fromSnapshot = PartitionRestore(snapshot: read, history: local)
        var localFold = PartitionFold(settings: FoldSettings(), history: local)
        try fromSnapshot.install(into: &localFold, geofences: table)
        let fromLocal = WallClock.monotonic() - started
        local.close()
        Terminal.output("  restore       \(users.grouped) users from the changelog alone: \(String(format2: fromChangelog)) s for \(changelog.count.grouped) records (\(bytes / 1_000_000) MB; \(Int(Double(changelog.count) / fromChangelog).grouped) records/s applied, reading them from Kafka not included)")
        Terminal.output("  restore       \(users.grouped) users from the local store: \(String(format2: fromLocal)) s (snapshot of \(hotParts.count.grouped) hot states; \(storedInputs.grouped) stored inputs stay on disk)")
    }

    // MARK: - Measuring

    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func directoryBytes(_ path: String) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return 0 }
        return names.reduce(0) { total, name in
            let size = (try? FileManager.default.attributesOfItem(atPath: path + "/" + name)[.size] as? Int) ?? 0
            return total + size
        }
    }
}
