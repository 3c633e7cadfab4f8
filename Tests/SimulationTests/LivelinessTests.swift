import Codec
import Domain
import Simulation
import Testing

/// The demo's fleet (`Liveliness.demo`): trips all the time, couriers who stop at the wrong store, devices
/// that go quiet, trips that run late. Each checked from the records, as the service would see them.
@Suite(.timeLimit(.minutes(5))) struct LivelinessTests {
    /// A city of `users` drivers and `geofences` geofences for `duration` seconds, seed `seed`.
    static func settings(users: Int, geofences: Int, duration: Int64, seed: UInt64) -> SimulationSettings {
        var settings = SimulationSettings()
        settings.users = users
        settings.geofences = geofences
        settings.duration = duration
        settings.seed = seed
        return settings
    }

    /// Every geofence and every record the fleet of `settings` gives.
    static func run(_ settings: SimulationSettings) -> (geofences: [Geofence], records: [SimulatedRecord]) {
        var simulator = FleetSimulator(settings: settings)
        var records = simulator.geofenceRecords
        while simulator.nextStep(into: &records) {}
        return (simulator.geofences, records)
    }

    /// One simulated hour of 200 drivers with the demo's liveliness.
    static let hour: (geofences: [Geofence], records: [SimulatedRecord]) = {
        var demo = Self.settings(users: 200, geofences: 300, duration: 3600, seed: 7)
        demo.offlineChance = 0.004
        demo.liveliness = .demo
        return Self.run(demo)
    }()

    /// Each user's fixes and commands in event time (an offline buffer arrives late; its place is its time).
    static func timelines(_ records: [SimulatedRecord]) -> [String: [SimulatedRecord]] {
        var byUser: [String: [(time: UnixMillis, order: Int, record: SimulatedRecord)]] = [:]
        for (order, record) in records.enumerated() {
            switch record {
            case let .fix(fix): byUser[fix.userId, default: []].append((fix.createdAt, order, record))
            case let .command(command): byUser[command.userId, default: []].append((command.createdAt, order, record))
            case .geofence: break
            }
        }
        return byUser.mapValues { $0.sorted { ($0.time, $0.order) < ($1.time, $1.order) }.map(\.record) }
    }

    struct WrongStop {
        var user: String
        var trip: String
        var geofence: GeofenceID
        var seconds: Int64
        /// Still stopped when the records end.
        var cutByTheEnd: Bool
        var reachedDestinationAfter = false
    }

    /// Every run of fixes at speed 0 inside a geofence of the trip's destination tag that is not its
    /// destination, while the trip is on, with whether the courier reached the destination afterwards.
    static func wrongStops(_ geofences: [Geofence], _ records: [SimulatedRecord]) -> [WrongStop] {
        let table = GeofenceTable(geofences)
        let tags = Dictionary(geofences.map { ($0.id, $0.tag) }, uniquingKeysWith: { a, _ in a })
        var stops: [WrongStop] = []
        for (user, timeline) in timelines(records) {
            var trip: (id: String, destination: GeofenceID, tag: String)?
            var run: (geofence: GeofenceID, from: UnixMillis, to: UnixMillis)?
            var open: Int?  // this trip's stop still waiting for its courier to reach the destination
            func endRun(cut: Bool = false) {
                if let r = run, let t = trip, r.to - r.from >= 60_000 {
                    stops.append(WrongStop(user: user, trip: t.id, geofence: r.geofence, seconds: (r.to - r.from) / 1000,
                                           cutByTheEnd: cut))
                    open = stops.count - 1
                }
                run = nil
            }
            for record in timeline {
                switch record {
                case let .command(command) where command.kind == .start:
                    endRun()
                    open = nil
                    guard let tag = command.trip.destinationGeofenceTag,
                        let externalId = command.trip.destinationGeofenceExternalId
                    else { continue }
                    trip = (command.trip.externalId, GeofenceID(tag: tag, externalId: externalId), tag)
                case .command:
                    endRun()
                    trip = nil
                    open = nil
                case let .fix(fix):
                    guard let t = trip else { continue }
                    var inside: [GeofenceID] = []
                    table.forEachContaining(fix.position) { id, _, _, _, _ in inside.append(id) }
                    if inside.contains(t.destination), let index = open {
                        stops[index].reachedDestinationAfter = true
                        open = nil
                    }
                    let wrong = inside.first { $0 != t.destination && tags[$0] == t.tag }
                    if fix.speed == 0, let wrong {
                        // Stores of a chain overlap: one stop, whichever of them the noisy fix falls in.
                        if run != nil {
                            run?.to = fix.createdAt
                        } else {
                            run = (wrong, fix.createdAt, fix.createdAt)
                        }
                    } else {
                        endRun()
                    }
                case .geofence: break
                }
            }
            endRun(cut: true)
        }
        return stops
    }

    @Test func aFewCouriersOfTheDemoFleetStopAtAWrongStore() {
        let (geofences, records) = Self.hour
        let couriers = Set(Self.wrongStops(geofences, records).map(\.user))
        #expect(couriers.count >= 3, "couriers with a wrong stop in an hour: \(couriers.count)")
        #expect(couriers.count <= 40, "a few couriers, not the fleet: \(couriers.count)")
    }

    @Test func aWrongStopIsMinutesAtRestThenTheCourierGoesOnToTheDestination() {
        var settings = Self.settings(users: 100, geofences: 300, duration: 3600, seed: 11)
        settings.jumpChance = 0  // a GPS jump would cut a stop in two
        settings.liveliness.wrongStopShare = 0.5
        settings.liveliness.tripBreak = 30...60
        let (geofences, records) = Self.run(settings)
        let stops = Self.wrongStops(geofences, records)
        let over = stops.filter { !$0.cutByTheEnd }
        #expect(over.count >= 30, "wrong stops over in an hour: \(over.count)")
        for stop in over {
            // Several minutes at rest: well past the fold's 60 s stop rule, never a drive-through.
            #expect((170...365).contains(stop.seconds), "\(stop.user) stopped \(stop.seconds) s")
        }
        let wentOn = over.filter(\.reachedDestinationAfter)
        #expect(wentOn.count * 10 >= over.count * 9, "\(wentOn.count) of \(over.count) went on to their destination")
        // Only the stops: the trips without one never stand still at a store of their destination's tag.
        let trips = Set(stops.map(\.trip))
        #expect(trips.count == stops.count, "a trip stopped at two wrong stores")
    }

    @Test func withoutLivelinessNobodyStopsAtAWrongStore() {
        let (geofences, records) = Self.run(Self.settings(users: 200, geofences: 300, duration: 1800, seed: 7))
        #expect(Self.wrongStops(geofences, records).isEmpty)
    }

    @Test func someDevicesGoQuietForMinutesAndSomeReplayTheirFixes() {
        let (_, records) = Self.hour
        var gaps = 0, replayedGaps = 0
        for (_, timeline) in Self.timelines(records) {
            let fixes = timeline.compactMap { record -> Fix? in if case let .fix(fix) = record { fix } else { nil } }
            for (previous, next) in zip(fixes, fixes.dropFirst()) where next.createdAt - previous.createdAt > 5 * 60_000 {
                gaps += 1
            }
            // A buffer of more than 5 minutes sent at once: stale on the map, then placed in event time.
            var run: [Fix] = []
            for fix in fixes {
                if fix.replayed {
                    run.append(fix)
                    continue
                }
                if let first = run.first, let last = run.last, last.createdAt - first.createdAt > 5 * 60_000 { replayedGaps += 1 }
                run = []
            }
        }
        #expect(gaps >= 3, "devices quiet for more than 5 minutes: \(gaps)")
        #expect(replayedGaps >= 3, "buffers of more than 5 minutes replayed: \(replayedGaps)")
    }

    @Test func tripsFollowOneAnotherAndSomeRunLate() {
        let (geofences, records) = Self.hour
        let start = records.lazy.compactMap { record -> UnixMillis? in
            if case let .fix(fix) = record { fix.createdAt } else { nil }
        }.first ?? 0
        var startsPerTenMinutes = [Int](repeating: 0, count: 7)
        var startsPerStep: [UnixMillis: Int] = [:]
        for case let .command(command) in records where command.kind == .start {
            startsPerTenMinutes[Int((command.createdAt - start) / 600_000)] += 1
            startsPerStep[command.createdAt / 5000 * 5000, default: 0] += 1
        }
        // No burst at the start (without liveliness, every trip starts at the first step), and trips keep
        // starting all hour.
        #expect((startsPerStep[start] ?? 0) <= 10, "trips started at the first step: \(startsPerStep[start] ?? 0)")
        #expect((startsPerStep.values.max() ?? 0) <= 12, "most starts in one step: \(startsPerStep.values.max() ?? 0)")
        for (window, starts) in startsPerTenMinutes.prefix(6).enumerated() {
            #expect(starts >= 15, "trips started in minutes \(window * 10)–\(window * 10 + 10): \(starts)")
        }
        // Trips scheduled too tight reach their destination after their scheduled arrival.
        let table = GeofenceTable(geofences)
        var late = 0, arrived = 0
        for (_, timeline) in Self.timelines(records) {
            var trip: (destination: GeofenceID, due: UnixMillis)?
            for record in timeline {
                switch record {
                case let .command(command):
                    if command.kind == .start, let tag = command.trip.destinationGeofenceTag,
                        let externalId = command.trip.destinationGeofenceExternalId,
                        let due = command.trip.scheduledArrivalAt
                    {
                        trip = (GeofenceID(tag: tag, externalId: externalId), due)
                    } else {
                        trip = nil
                    }
                case let .fix(fix):
                    guard let t = trip else { continue }
                    var inside = false
                    table.forEachContaining(fix.position) { id, _, _, _, _ in inside = inside || id == t.destination }
                    if inside {
                        arrived += 1
                        if fix.createdAt > t.due { late += 1 }
                        trip = nil
                    }
                case .geofence: break
                }
            }
        }
        #expect(arrived >= 200, "trips arrived in an hour: \(arrived)")
        #expect(late * 100 >= arrived * 5 && late * 100 <= arrived * 30, "\(late) of \(arrived) arrivals late")
    }

    @Test func sameSeedSameRecords() {
        var settings = Self.settings(users: 100, geofences: 100, duration: 1200, seed: 3)
        settings.liveliness = .demo
        func encoded(_ settings: SimulationSettings) -> [[UInt8]] {
            var key: [UInt8] = [], value: [UInt8] = []
            return Self.run(settings).records.map { record in
                InputRecordEncoder.encode(record, key: &key, value: &value)
                return key + [0] + value
            }
        }
        let first = encoded(settings)
        #expect(first == encoded(settings))
        settings.seed = 4
        #expect(first != encoded(settings))
    }
}
