import Codec

/// The console's read model: what the output topics say about the fleet, newest first, plus what changed
/// since the live view last took the changes. A value: the feed applies records, the server reads it under
/// one lock (``FleetStore``), and tests drive it directly.
public struct FleetModel: Sendable {
    public static let maximumTrackPoints = 2_000
    public static let feedLength = 300
    /// Ended trips kept for their tracking pages; the oldest go first past this many.
    public static let maximumEndedTrips = 20_000

    public private(set) var drivers: [String: Driver] = [:]
    public private(set) var trips: [TripKey: TripView] = [:]
    public private(set) var geofences: [String: GeofenceView] = [:]
    public private(set) var feed: [FeedEvent] = []
    /// Newest fix time seen across the fleet (stream time, ms): a driver is stale relative to it.
    public private(set) var streamTime: Int64 = 0
    /// Records applied, and records that did not decode (counted, then skipped).
    public private(set) var recordsApplied = 0
    public private(set) var recordsRejected = 0
    /// Numbers each feed event; a delta's id is the last one it carries.
    public private(set) var eventSequence: Int64 = 0
    /// Kafka timestamp (ms) of the newest users-topic record applied: the page shows how far behind it draws.
    public private(set) var newestUserRecordAt: Int64 = 0
    /// Numbers the live view's deltas; a snapshot carries the last one taken, so a page asks for the next.
    public private(set) var deltaSequence: Int64 = 0

    private(set) var changedDrivers: Set<String> = []
    private(set) var removedDrivers: Set<String> = []
    private(set) var changedTrips: Set<TripKey> = []
    private(set) var changedGeofences: Set<String> = []
    private(set) var removedGeofences: Set<String> = []
    private var eventsTakenThrough: Int64 = 0
    private var endedTrips = 0

    public init() {}

    // MARK: - Records

    /// Applies one record of `topic`; `timestamp` is its Kafka timestamp (ms). Undecodable values are counted.
    public mutating func apply(topic: String, key: [UInt8]?, value: [UInt8]?, timestamp: Int64, topics: ConsoleTopics) {
        let applied: Bool
        switch topic {
        case topics.users: applied = applyUserState(key: key, value: value, timestamp: timestamp)
        case topics.events: applied = value.map { applyEvent($0, timestamp: timestamp) } ?? false
        case topics.eta: applied = value.map { applyETA($0, timestamp: timestamp) } ?? false
        case topics.tripSummaries: applied = value.map { applySummary($0, timestamp: timestamp) } ?? false
        case topics.geofences: applied = applyGeofence(key: key, value: value)
        default: applied = false
        }
        if applied { recordsApplied += 1 } else { recordsRejected += 1 }
    }

    mutating func applyUserState(key: [UInt8]?, value: [UInt8]?, timestamp: Int64) -> Bool {
        guard let value, !value.isEmpty else {
            // A tombstone: the user is gone from the compacted table.
            guard let key, let user = String(validating: key, as: UTF8.self) else { return false }
            if drivers.removeValue(forKey: user) != nil {
                removedDrivers.insert(user)
                changedDrivers.remove(user)
            }
            return true
        }
        guard let state = Self.object(value), let user = state["userId"]?.string, !user.isEmpty else { return false }
        newestUserRecordAt = max(newestUserRecordAt, timestamp)
        let lastFixAt = state.time("lastFixAt") ?? 0
        var trip: TripView?
        if let fields = state["trip"] {
            trip = applyTrip(fields, user: user, timestamp: timestamp)
        }
        guard let location = state.point("location") else { return true }  // no fix yet: nothing to draw
        streamTime = max(streamTime, lastFixAt)
        let active = trip?.isActive == true ? trip : nil
        drivers[user] = Driver(id: user, longitude: location.longitude, latitude: location.latitude,
                               lastFixAt: lastFixAt, speed: state["speed"]?.double, activeTrip: active?.key.trip,
                               delayed: active?.delayed ?? false)
        removedDrivers.remove(user)
        changedDrivers.insert(user)
        if let key = active?.key {
            appendTrack(key, TrackPoint(longitude: location.longitude, latitude: location.latitude, time: lastFixAt))
        }
        return true
    }

    mutating func applyEvent(_ value: [UInt8], timestamp: Int64) -> Bool {
        guard let event = Self.object(value), let type = event["type"]?.string,
            let user = event["user"]?["userId"]?.string, !user.isEmpty
        else { return false }
        var tripId: String?
        if let fields = event["trip"] { tripId = applyTrip(fields, user: user, timestamp: timestamp)?.key.trip }
        let location = event.point("location")
        let geofence = event["geofence"].flatMap { fence in
            fence["tag"]?.string.map { "\($0)/\(fence["externalId"]?.string ?? "")" }
        }
        eventSequence += 1
        feed.append(FeedEvent(sequence: eventSequence, id: event["_id"]?.string ?? "", type: type,
                              createdAt: event.time("createdAt") ?? 0, user: user, longitude: location?.longitude,
                              latitude: location?.latitude, geofence: geofence, trip: tripId))
        if feed.count > Self.feedLength + Self.feedLength / 4 { feed.removeFirst(feed.count - Self.feedLength) }
        return true
    }

    mutating func applyETA(_ value: [UInt8], timestamp: Int64) -> Bool {
        guard let update = Self.object(value), let user = update["userId"]?.string, !user.isEmpty,
            let trip = update["externalId"]?.string, let status = update["status"]?.string
        else { return false }
        let key = TripKey(user: user, trip: trip)
        var view = trips[key] ?? TripView(key: key, status: status, delayed: false, minutesLate: 0)
        if view.endedAt == nil || !TripView.activeStatuses.contains(status) { view.status = status }
        view.delayed = update["delayed"]?.bool ?? view.delayed
        if let eta = update["eta"] { readETA(eta, into: &view) }
        view.destinationTag = update["destinationGeofenceTag"]?.string ?? view.destinationTag
        view.destinationExternalId = update["destinationGeofenceExternalId"]?.string ?? view.destinationExternalId
        view.scheduledArrivalAt = update.time("scheduledArrivalAt") ?? view.scheduledArrivalAt
        store(view, timestamp: timestamp)
        return true
    }

    mutating func applySummary(_ value: [UInt8], timestamp: Int64) -> Bool {
        guard let summary = Self.object(value), let user = summary["userId"]?.string, !user.isEmpty,
            let trip = summary["tripExternalId"]?.string, let status = summary["status"]?.string
        else { return false }
        let key = TripKey(user: user, trip: trip)
        var view = trips[key] ?? TripView(key: key, status: status, delayed: false, minutesLate: 0)
        view.status = status
        view.arrivedAt = summary.time("arrivedAt") ?? view.arrivedAt
        view.startedAt = view.startedAt ?? summary.time("startedAt")
        store(view, timestamp: timestamp)
        return true
    }

    mutating func applyGeofence(key: [UInt8]?, value: [UInt8]?) -> Bool {
        guard let value, !value.isEmpty else {
            guard let key, let name = String(validating: key, as: UTF8.self) else { return false }
            if geofences.removeValue(forKey: name) != nil { removedGeofences.insert(name) }
            changedGeofences.remove(name)
            return true
        }
        guard let fence = Self.object(value), let tag = fence["tag"]?.string,
            let externalId = fence["externalId"]?.string, let type = fence["type"]?.string
        else { return false }
        let name = key.flatMap { String(validating: $0, as: UTF8.self) } ?? "\(tag)/\(externalId)"
        let shape: GeofenceView.Shape
        switch type {
        case "circle":
            guard let center = fence.point("coordinates"), let radius = fence["radius"]?.double, radius > 0 else {
                return false
            }
            shape = .circle(longitude: center.longitude, latitude: center.latitude, radius: radius)
        case "polygon":
            guard let rings = Self.rings(fence["coordinates"]?.array) else { return false }
            shape = .polygon(rings)
        default: return false
        }
        if fence["enabled"]?.bool == false {
            if geofences.removeValue(forKey: name) != nil { removedGeofences.insert(name) }
            return true
        }
        geofences[name] = GeofenceView(key: name, tag: tag, externalId: externalId,
                                       description: fence["description"]?.string, shape: shape)
        removedGeofences.remove(name)
        changedGeofences.insert(name)
        return true
    }

    /// A polygon's rings: `[[[lon,lat],...],...]`, or a single ring `[[lon,lat],...]` as the geofences topic allows.
    static func rings(_ coordinates: [JSONValue]?) -> [[[Double]]]? {
        guard let coordinates, !coordinates.isEmpty else { return nil }
        let nested = coordinates.first?.array?.first?.array != nil
        let ringList = nested ? coordinates : [.array(coordinates)]
        var rings: [[[Double]]] = []
        for ring in ringList {
            guard let points = ring.array, points.count >= 3, points.count <= 100_000 else { return nil }
            var out: [[Double]] = []
            for point in points {
                guard let pair = point.position else { return nil }
                out.append([pair.longitude, pair.latitude])
            }
            rings.append(out)
        }
        return rings
    }

    /// A record's value parsed by Codec, if it is a JSON object; nil (the record is counted as rejected) otherwise.
    static func object(_ value: [UInt8]) -> JSONValue? {
        guard let parsed = try? JSONValue.parse(value), parsed.isObject else { return nil }
        return parsed
    }

    // MARK: - Trips

    /// Updates the trip an event or user state carries, returns it as stored.
    private mutating func applyTrip(_ fields: JSONValue, user: String, timestamp: Int64) -> TripView? {
        guard let externalId = fields["externalId"]?.string, let status = fields["status"]?.string else { return nil }
        let key = TripKey(user: user, trip: externalId)
        var view = trips[key] ?? TripView(key: key, status: status, delayed: false, minutesLate: 0)
        // A trip that ended stays ended: an older record read later (another topic) cannot revive it.
        if view.endedAt == nil || !TripView.activeStatuses.contains(status) { view.status = status }
        view.mode = fields["mode"]?.string ?? view.mode
        view.destinationTag = fields["destinationGeofenceTag"]?.string ?? view.destinationTag
        view.destinationExternalId = fields["destinationGeofenceExternalId"]?.string ?? view.destinationExternalId
        if let destination = fields.point("destinationLocation") { view.destination = destination }
        view.destinationRadius = fields["destinationRadius"]?.double ?? view.destinationRadius
        view.startedAt = fields.time("startedAt") ?? view.startedAt
        view.scheduledArrivalAt = fields.time("scheduledArrivalAt") ?? view.scheduledArrivalAt
        view.arrivedAt = fields.time("arrivedAt") ?? view.arrivedAt
        if let eta = fields["eta"] { readETA(eta, into: &view) }
        if let delay = fields["delay"], delay.isObject {
            view.delayed = delay["delayed"]?.bool ?? false
            view.minutesLate = Int(delay["scheduledArrivalTimeDelay"]?.double ?? 0)
        }
        store(view, timestamp: timestamp)
        return trips[key]
    }

    private func readETA(_ eta: JSONValue, into view: inout TripView) {
        view.etaMinutes = eta["duration"]?.double ?? view.etaMinutes
        view.etaMeters = eta["distance"]?.double ?? view.etaMeters
        view.etaLowMinutes = eta["durationLow"]?.double ?? view.etaLowMinutes
        view.etaHighMinutes = eta["durationHigh"]?.double ?? view.etaHighMinutes
    }

    private mutating func store(_ view: TripView, timestamp: Int64) {
        var view = view
        if !view.isActive, view.endedAt == nil {
            view.endedAt = timestamp
            endedTrips += 1
        }
        trips[view.key] = view
        changedTrips.insert(view.key)
        if endedTrips > Self.maximumEndedTrips + Self.maximumEndedTrips / 10 { evictEndedTrips() }
    }

    private mutating func appendTrack(_ key: TripKey, _ point: TrackPoint) {
        guard var view = trips[key] else { return }
        if let last = view.track.last, last.longitude == point.longitude, last.latitude == point.latitude { return }
        if let last = view.track.last, point.time < last.time { return }  // the users topic moves forward
        view.track.append(point)
        if view.track.count > Self.maximumTrackPoints {
            // Every other point goes; the first and the newest stay.
            view.track = view.track.enumerated().filter { $0.offset % 2 == 0 || $0.offset == view.track.count - 1 }
                .map(\.element)
        }
        trips[key] = view
    }

    private mutating func evictEndedTrips() {
        let ended = trips.values.compactMap { view in view.endedAt.map { (view.key, $0) } }.sorted { $0.1 < $1.1 }
        for (key, _) in ended.prefix(max(0, ended.count - Self.maximumEndedTrips)) { trips.removeValue(forKey: key) }
        endedTrips = min(ended.count, Self.maximumEndedTrips)
    }

    // MARK: - Changes

    /// What changed since the last call, for the live view; clears the record of changes.
    public mutating func takeChanges() -> FleetChanges {
        let changes = FleetChanges(
            drivers: changedDrivers.compactMap { drivers[$0] }, removedDrivers: Array(removedDrivers),
            trips: changedTrips.compactMap { trips[$0] }, geofences: changedGeofences.compactMap { geofences[$0] },
            removedGeofences: Array(removedGeofences), events: feed.filter { $0.sequence > eventsTakenThrough },
            eventCount: Int(eventSequence - eventsTakenThrough),
            streamTime: streamTime, newestUserRecordAt: newestUserRecordAt, sequence: deltaSequence + 1)
        deltaSequence += 1
        changedDrivers = []
        removedDrivers = []
        changedTrips = []
        changedGeofences = []
        removedGeofences = []
        eventsTakenThrough = eventSequence
        return changes
    }
}
