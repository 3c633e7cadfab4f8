import Domain

/// A fleet of drivers moving through a city: geofences, trip commands and fixes with GPS noise,
/// jumps, offline gaps replayed late and duplicates; with `SimulationSettings.liveliness`, also trips
/// that start and end all the time, couriers who stop at the wrong store, devices that go quiet and
/// trips scheduled too tight. Deterministic for a seed.
///
/// Records come out in arrival order, one time step at a time, so a caller can stream millions
/// of them to a broker or a file without holding them.
public struct FleetSimulator: LiveFleet, Sendable {
    struct Driver: Sendable {
        var userId: String
        var position: (north: Double, east: Double)
        var target: (north: Double, east: Double)
        var speed: Double
        var tripDestination: Int?
        var tripNumber = 0
        var arrivedAt: Int64?
        var offlineBuffer: [Fix] = []
        var offlineRemaining = 0
        /// The next trip's destination and the step it starts at (staggered first trips, breaks).
        var nextTrip: (destination: Int, step: Int64)?
        /// The wrong store this leg stops at first, and for how many seconds.
        var wrongStop: (geofence: Int, seconds: Int64)?
        /// While stopped at the wrong store: until when.
        var stoppedUntil: UnixMillis?
        /// Fixes a quiet device drops rather than buffers.
        var quietRemaining = 0
    }

    public let settings: SimulationSettings
    public private(set) var geofences: [Geofence] = []
    private var centers: [(north: Double, east: Double)] = []
    private var drivers: [Driver] = []
    private var random: SeededRandom
    /// Draws of the liveliness behaviours only, so a fleet without them draws from `random` as before.
    private var lively: SeededRandom
    private var step: Int64 = 0
    private let metersPerLat: Double
    private let metersPerLng: Double

    public init(settings: SimulationSettings) {
        self.settings = settings
        random = SeededRandom(seed: settings.seed)
        lively = SeededRandom(seed: settings.seed ^ 0x6c69_7665_6c79)
        metersPerLat = Geodesy.metersPerDegree
        metersPerLng = Geodesy.metersPerDegree * Math.cos(settings.cityCenter.latitude * Double.pi / 180)
        for index in 0..<settings.geofences {
            let center = randomPoint()
            centers.append(center)
            let coordinate = coordinate(center)
            let dwell: Int? = index % 4 == 0 ? 2 + index % 5 : nil
            if index % 10 == 9 {
                let half = Double.random(in: settings.squareHalfSide, using: &random)
                let ring = [(-half, -half), (-half, half), (half, half), (half, -half), (-half, -half)].map {
                    self.coordinate((center.north + $0.0, center.east + $0.1))
                }
                geofences.append(Geofence(
                    tag: "depot", externalId: "depot-\(index)", description: "Depot \(index)",
                    shape: .polygon(rings: [ring]), metadata: RawJSON("{\"zone\":\"\(index % 7)\"}"),
                    dwellThreshold: dwell))
            } else {
                geofences.append(Geofence(
                    tag: "store", externalId: "store-\(index)", description: "Store \(index)",
                    shape: .circle(center: coordinate, radius: Double.random(in: settings.circleRadius, using: &random)),
                    metadata: RawJSON("{\"storeId\":\"\(index)\"}"), dwellThreshold: dwell))
            }
        }
        for index in 0..<settings.users {
            let position = randomPoint()
            var driver = Driver(userId: "driver-\(index)", position: position, target: randomPoint(),
                                speed: Double.random(in: 6...14, using: &random))
            if !centers.isEmpty, Double(index % 1000) < settings.tripShare * 1000 {
                let destination = Int.random(in: 0..<centers.count, using: &random)
                if settings.liveliness.firstTripWithin > 0 {
                    let steps = settings.liveliness.firstTripWithin / settings.fixInterval
                    driver.nextTrip = (destination, Int64.random(in: 0...steps, using: &lively))
                } else {
                    driver.tripDestination = destination
                    driver.target = centers[destination]
                }
            }
            drivers.append(driver)
        }
    }

    /// Every geofence, as the admin tools publish them first.
    public var geofenceRecords: [SimulatedRecord] { geofences.map { .geofence($0) } }

    public var isFinished: Bool { step * settings.fixInterval > settings.duration }

    /// Event time of the current step.
    public var currentTime: UnixMillis { settings.start + step * settings.fixInterval * 1000 }

    public var startTime: UnixMillis { settings.start }

    public var stepMilliseconds: Int64 { settings.fixInterval * 1000 }

    /// The records of the next time step (every driver's fix, commands, late replays), or nil when done.
    public mutating func nextStep(into records: inout [SimulatedRecord]) -> Bool {
        guard !isFinished else { return false }
        let time = currentTime
        for index in drivers.indices {
            var driver = drivers[index]
            advance(&driver, at: time, records: &records)
            drivers[index] = driver
        }
        step += 1
        return true
    }

    private mutating func advance(_ driver: inout Driver, at time: UnixMillis, records: inout [SimulatedRecord]) {
        if step == 0, let destination = driver.tripDestination {
            startTrip(&driver, to: destination, at: time, into: &records)
        }
        if let next = driver.nextTrip, next.step <= step {
            driver.nextTrip = nil
            startTrip(&driver, to: next.destination, at: time, into: &records)
        }
        // The dispatcher reacts to what the driver's fix shows, so its commands follow the fix.
        var dispatch: [SimulatedRecord] = []
        defer { records.append(contentsOf: dispatch) }
        if let arrivedAt = driver.arrivedAt, let destination = driver.tripDestination,
            time - arrivedAt >= 120_000
        {
            dispatch.append(.command(TripCommand(
                kind: .complete, userId: driver.userId, createdAt: time,
                trip: TripOptions(externalId: tripId(driver)))))
            driver.arrivedAt = nil
            driver.tripNumber += 1
            let next = (destination + 1 + Int.random(in: 0..<max(centers.count - 1, 1), using: &random)) % centers.count
            let pause = Int64.random(in: settings.liveliness.tripBreak, using: &lively) / settings.fixInterval
            if pause > 0 {
                // A break: the driver drives off, and the dispatcher sends the next trip later.
                driver.tripDestination = nil
                driver.nextTrip = (next, step + pause)
                driver.target = randomPoint()
            } else {
                startTrip(&driver, to: next, at: time + 1, into: &dispatch)
            }
        }
        move(&driver)
        let fix = makeFix(driver, at: time)
        if driver.quietRemaining > 0 {
            driver.quietRemaining -= 1
            return
        }

        if driver.offlineRemaining > 0 {
            var buffered = fix
            buffered.replayed = true
            driver.offlineBuffer.append(buffered)
            driver.offlineRemaining -= 1
            if driver.offlineRemaining == 0 {
                // Back online: a fresh live fix first, then the buffer, oldest first.
                var live = fix
                live.createdAt += 500
                records.append(.fix(live))
                for late in driver.offlineBuffer { records.append(.fix(late)) }
                driver.offlineBuffer.removeAll()
            }
            return
        }
        if Double.random(in: 0..<1, using: &random) < settings.offlineChance {
            driver.offlineRemaining = Int.random(in: settings.offlineLength, using: &random)
        } else if settings.liveliness.quietChance > 0,
            Double.random(in: 0..<1, using: &lively) < settings.liveliness.quietChance
        {
            let length = Int.random(in: settings.liveliness.quietLength, using: &lively)
            if Double.random(in: 0..<1, using: &lively) < settings.liveliness.quietReplayShare {
                driver.offlineRemaining = length
            } else {
                driver.quietRemaining = length
            }
        }
        records.append(.fix(fix))
        if Double.random(in: 0..<1, using: &random) < settings.duplicateChance { records.append(.fix(fix)) }
    }

    private mutating func move(_ driver: inout Driver) {
        if let until = driver.stoppedUntil {
            guard currentTime >= until, let destination = driver.tripDestination else { return }
            // The stop at the wrong store is over: on to the real destination.
            driver.stoppedUntil = nil
            driver.wrongStop = nil
            driver.target = centers[destination]
        }
        let dn = driver.target.north - driver.position.north
        let de = driver.target.east - driver.position.east
        let remaining = (dn * dn + de * de).squareRoot()
        let stepLength = driver.speed * Double(settings.fixInterval)
        if remaining <= stepLength {
            driver.position = driver.target
            if let stop = driver.wrongStop {
                driver.stoppedUntil = currentTime + stop.seconds * 1000
            } else if driver.tripDestination != nil {
                if driver.arrivedAt == nil { driver.arrivedAt = currentTime }
            } else {
                driver.target = randomPoint()
            }
        } else {
            driver.position.north += dn / remaining * stepLength
            driver.position.east += de / remaining * stepLength
        }
    }

    private mutating func makeFix(_ driver: Driver, at time: UnixMillis) -> Fix {
        var north = driver.position.north + random.gaussian() * settings.gpsNoise
        var east = driver.position.east + random.gaussian() * settings.gpsNoise
        if Double.random(in: 0..<1, using: &random) < settings.jumpChance {
            north += Double.random(in: 3_000...12_000, using: &random)
            east -= Double.random(in: 3_000...12_000, using: &random)
        }
        let accuracy = Float((settings.gpsNoise * Double.random(in: 1...3, using: &random)).rounded())
        // Standing still at the wrong store: a receiver at rest reports no speed to speak of.
        let speed = driver.stoppedUntil == nil ? Float((driver.speed * 10).rounded() / 10) : 0
        return Fix(userId: driver.userId, createdAt: time, position: coordinate((north, east)), accuracy: accuracy,
                   speed: speed, deviceId: "device-\(driver.userId.utf8.count)")
    }

    /// Puts `driver` on a trip to `destination` (by way of a wrong store, for some couriers) and appends
    /// the dispatcher's start command.
    private mutating func startTrip(_ driver: inout Driver, to destination: Int, at time: UnixMillis,
                                    into records: inout [SimulatedRecord])
    {
        driver.tripDestination = destination
        driver.target = centers[destination]
        let liveliness = settings.liveliness
        var drive = 0.0  // meters to drive, when a tight schedule needs it
        if liveliness.wrongStopShare > 0, Double.random(in: 0..<1, using: &lively) < liveliness.wrongStopShare,
            let store = wrongStore(for: destination, from: driver.position)
        {
            driver.wrongStop = (store, Int64.random(in: liveliness.wrongStopLength, using: &lively))
            driver.target = centers[store]
            drive = distance(driver.position, centers[store]) + distance(centers[store], centers[destination])
        } else {
            drive = distance(driver.position, centers[destination])
        }
        var scheduled = time + 20 * 60_000
        if liveliness.tightScheduleShare > 0,
            Double.random(in: 0..<1, using: &lively) < liveliness.tightScheduleShare
        {
            let seconds = drive / driver.speed + Double(driver.wrongStop?.seconds ?? 0)
            scheduled = time + Int64(seconds * Double.random(in: 0.5...0.85, using: &lively) * 1000)
        }
        let geofence = geofences[destination]
        records.append(.command(TripCommand(
            kind: .start, userId: driver.userId, createdAt: time,
            trip: TripOptions(
                externalId: tripId(driver), destinationGeofenceTag: geofence.tag,
                destinationGeofenceExternalId: geofence.externalId, mode: .car, approachingThreshold: 3,
                scheduledArrivalAt: scheduled, metadata: RawJSON("{\"orderId\":\"\(driver.userId)-\(driver.tripNumber)\"}")))))
    }

    /// Another geofence of the destination's tag on the way there: the nearest to the middle of the
    /// drive among those well clear of both ends and of the destination (the courier must not arrive
    /// on the way to the wrong store). Nil when there is none.
    private func wrongStore(for destination: Int, from position: (north: Double, east: Double)) -> Int? {
        let tag = geofences[destination].tag
        let end = centers[destination]
        let middle = ((position.north + end.north) / 2, (position.east + end.east) / 2)
        var best: (index: Int, distance: Double)?
        for index in centers.indices where index != destination && geofences[index].tag == tag {
            let center = centers[index]
            guard distance(center, end) > Self.wrongStoreClearance, distance(center, position) > Self.wrongStoreClearance,
                Self.distance(from: end, toSegment: position, center) > Self.wrongStoreClearance
            else { continue }
            let fromMiddle = distance(center, middle)
            if best.map({ fromMiddle < $0.distance }) ?? true { best = (index, fromMiddle) }
        }
        return best?.index
    }

    /// Meters between a wrong store and the places it must stay clear of: more than two geofences' size.
    static let wrongStoreClearance = 500.0

    private func distance(_ a: (north: Double, east: Double), _ b: (north: Double, east: Double)) -> Double {
        let dn = a.north - b.north, de = a.east - b.east
        return (dn * dn + de * de).squareRoot()
    }

    private static func distance(from point: (north: Double, east: Double), toSegment a: (north: Double, east: Double),
                                 _ b: (north: Double, east: Double)) -> Double
    {
        let dn = b.north - a.north, de = b.east - a.east
        let length = dn * dn + de * de
        let t = length == 0 ? 0 : max(0, min(1, ((point.north - a.north) * dn + (point.east - a.east) * de) / length))
        let n = point.north - (a.north + t * dn), e = point.east - (a.east + t * de)
        return (n * n + e * e).squareRoot()
    }

    private func tripId(_ driver: Driver) -> String { "\(driver.userId)-trip-\(driver.tripNumber)" }

    private mutating func randomPoint() -> (north: Double, east: Double) {
        if let area = settings.cityArea {
            return (Double.random(in: -0.5...0.5, using: &random) * area.northSouth,
                    Double.random(in: -0.5...0.5, using: &random) * area.eastWest)
        }
        let r = settings.effectiveCityRadius * Double.random(in: 0...1, using: &random).squareRoot()
        let angle = Double.random(in: 0..<(2 * Double.pi), using: &random)
        return (r * Math.cos(angle), r * Math.sin(angle))
    }

    private func coordinate(_ p: (north: Double, east: Double)) -> Coordinate {
        Coordinate(latitude: settings.cityCenter.latitude + p.north / metersPerLat,
                   longitude: settings.cityCenter.longitude + p.east / metersPerLng)
    }
}
