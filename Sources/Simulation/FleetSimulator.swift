import Domain

/// A fleet of drivers moving through a city: geofences, trip commands and fixes with GPS noise,
/// jumps, offline gaps replayed late and duplicates. Deterministic for a seed.
///
/// Records come out in arrival order, one time step at a time, so a caller can stream millions
/// of them to a broker or a file without holding them.
public struct FleetSimulator {
    struct Driver {
        var userId: String
        var position: (north: Double, east: Double)
        var target: (north: Double, east: Double)
        var speed: Double
        var tripDestination: Int?
        var tripNumber = 0
        var arrivedAt: Int64?
        var offlineBuffer: [Fix] = []
        var offlineRemaining = 0
    }

    public let settings: SimulationSettings
    public private(set) var geofences: [Geofence] = []
    private var centers: [(north: Double, east: Double)] = []
    private var drivers: [Driver] = []
    private var random: SeededRandom
    private var step: Int64 = 0
    private let metersPerLat: Double
    private let metersPerLng: Double

    public init(settings: SimulationSettings) {
        self.settings = settings
        random = SeededRandom(seed: settings.seed)
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
                driver.tripDestination = destination
                driver.target = centers[destination]
            }
            drivers.append(driver)
        }
    }

    /// Every geofence, as the admin tools publish them first.
    public var geofenceRecords: [SimulatedRecord] { geofences.map { .geofence($0) } }

    public var isFinished: Bool { step * settings.fixInterval > settings.duration }

    /// Event time of the current step.
    public var currentTime: UnixMillis { settings.start + step * settings.fixInterval * 1000 }

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
            records.append(.command(startCommand(driver, destination: destination, at: time)))
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
            driver.tripDestination = next
            driver.target = centers[next]
            dispatch.append(.command(startCommand(driver, destination: next, at: time + 1)))
        }
        move(&driver)
        let fix = makeFix(driver, at: time)

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
        }
        records.append(.fix(fix))
        if Double.random(in: 0..<1, using: &random) < settings.duplicateChance { records.append(.fix(fix)) }
    }

    private mutating func move(_ driver: inout Driver) {
        let dn = driver.target.north - driver.position.north
        let de = driver.target.east - driver.position.east
        let remaining = (dn * dn + de * de).squareRoot()
        let stepLength = driver.speed * Double(settings.fixInterval)
        if remaining <= stepLength {
            driver.position = driver.target
            if driver.tripDestination != nil {
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
        return Fix(userId: driver.userId, createdAt: time, position: coordinate((north, east)), accuracy: accuracy,
                   speed: Float((driver.speed * 10).rounded() / 10), deviceId: "device-\(driver.userId.utf8.count)")
    }

    private func startCommand(_ driver: Driver, destination: Int, at time: UnixMillis) -> TripCommand {
        let geofence = geofences[destination]
        return TripCommand(
            kind: .start, userId: driver.userId, createdAt: time,
            trip: TripOptions(
                externalId: tripId(driver), destinationGeofenceTag: geofence.tag,
                destinationGeofenceExternalId: geofence.externalId, mode: .car, approachingThreshold: 3,
                scheduledArrivalAt: time + 20 * 60_000, metadata: RawJSON("{\"orderId\":\"\(driver.userId)-\(driver.tripNumber)\"}")))
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
