#if canImport(Glibc)
import Glibc
#endif
import Domain

/// Builders shared by the domain tests: a small world around Porto's Avenida dos Aliados.
enum World {
    static let t0: UnixMillis = 1_372_636_800_000  // 2013-07-01T00:00:00Z

    static func point(_ lat: Double, _ lng: Double) -> Coordinate { Coordinate(latitude: lat, longitude: lng) }

    /// A point `north` and `east` meters away from `origin`.
    static func offset(_ origin: Coordinate, north: Double, east: Double) -> Coordinate {
        let lat = origin.latitude + north / Geodesy.metersPerDegree
        let lng = origin.longitude + east / (Geodesy.metersPerDegree * cos(origin.latitude * .pi / 180))
        return Coordinate(latitude: lat, longitude: lng)
    }

    static let center = point(41.1480, -8.6110)

    static func circle(_ tag: String = "store", _ id: String, at c: Coordinate = center, radius: Double = 100,
                       dwell: Int? = nil, enabled: Bool = true) -> Geofence
    {
        Geofence(tag: tag, externalId: id, description: "\(tag) \(id)", shape: .circle(center: c, radius: radius),
                 enabled: enabled, dwellThreshold: dwell)
    }

    static func fix(_ user: String = "u1", at seconds: Int64, _ c: Coordinate, accuracy: Float = .nan,
                    replayed: Bool = false) -> Fix
    {
        Fix(userId: user, createdAt: t0 + seconds * 1000, position: c, accuracy: accuracy, replayed: replayed)
    }

    static func start(_ user: String = "u1", at seconds: Int64, trip: String = "t1", tag: String = "store",
                      geofence: String = "g1", threshold: Int? = nil, scheduled: Int64? = nil,
                      delayThreshold: Int? = nil) -> TripCommand
    {
        TripCommand(kind: .start, userId: user, createdAt: t0 + seconds * 1000,
                    trip: TripOptions(externalId: trip, destinationGeofenceTag: tag,
                                      destinationGeofenceExternalId: geofence, mode: .car,
                                      approachingThreshold: threshold,
                                      scheduledArrivalAt: scheduled.map { t0 + $0 * 1000 },
                                      delayThreshold: delayThreshold))
    }

    /// An `update` that moves the trip's scheduled arrival to `scheduled` seconds after t0.
    static func reschedule(_ user: String = "u1", at seconds: Int64, trip: String = "t1", scheduled: Int64)
        -> TripCommand
    {
        TripCommand(kind: .update, userId: user, createdAt: t0 + seconds * 1000,
                    trip: TripOptions(externalId: trip, scheduledArrivalAt: t0 + scheduled * 1000))
    }

    static func command(_ kind: TripCommand.Kind, _ user: String = "u1", at seconds: Int64, trip: String = "t1")
        -> TripCommand
    {
        TripCommand(kind: kind, userId: user, createdAt: t0 + seconds * 1000, trip: TripOptions(externalId: trip))
    }
}

/// Drives a `PartitionFold` the way the runtime does, collecting every published event.
struct Harness {
    var fold: PartitionFold
    var geofences: GeofenceTable
    var published: [Event] = []
    var results: [PartitionFold.Result] = []
    /// Processing time: defaults to "just after the input", i.e. a live stream.
    var clockLag: UnixMillis = 1_000

    init(_ geofences: [Geofence], settings: FoldSettings = FoldSettings()) {
        fold = PartitionFold(settings: settings)
        self.geofences = GeofenceTable(geofences)
    }

    /// Whether each input is its own batch (late ones placed at once); false: call `settle()`.
    var settlesEachInput = true

    init(_ geofences: [Geofence], settings: FoldSettings = FoldSettings(), history: any HistoryStore) {
        fold = PartitionFold(settings: settings, history: history)
        self.geofences = GeofenceTable(geofences)
    }

    @discardableResult
    mutating func send(_ fix: Fix) -> PartitionFold.Result {
        let now = max(fix.createdAt, fold.streamTime) + clockLag
        let result = fold.process(fix, geofences: geofences, processingTime: now, events: &published)
        results.append(result)
        if settlesEachInput { fold.settle(geofences: geofences, processingTime: now, events: &published) }
        return result
    }

    @discardableResult
    mutating func send(_ command: TripCommand) -> PartitionFold.Result {
        let now = max(command.createdAt, fold.streamTime) + clockLag
        let result = fold.process(command, geofences: geofences, processingTime: now, events: &published)
        results.append(result)
        if settlesEachInput { fold.settle(geofences: geofences, processingTime: now, events: &published) }
        return result
    }

    /// Places the late inputs sent since the last settle (the end of a batch).
    mutating func settle() {
        fold.settle(geofences: geofences, processingTime: fold.streamTime + clockLag, events: &published)
    }

    func types() -> [EventType] { published.map(\.type) }

    func events(_ type: EventType) -> [Event] { published.filter { $0.type == type } }

    /// What a consumer upserting by `_id` ends with, retractions dropped, in `_id` order.
    func upserted() -> [Event] {
        var byID: [EventID: Event] = [:]
        for event in published { byID[event.id] = event }
        return byID.values.filter { $0.revision != .retracted }.sorted { $0.id < $1.id }
    }
}
