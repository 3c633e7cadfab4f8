import Domain

/// What `FleetSimulator` generates.
public struct SimulationSettings: Sendable, Equatable {
    /// Drivers. Default: 1,000.
    public var users = 1_000
    /// Geofences scattered over the city. Default: 1,000.
    public var geofences = 1_000
    /// Seconds between two fixes of a driver. Default: 5.
    public var fixInterval: Int64 = 5
    /// Simulated event-time span, seconds. Default: 600.
    public var duration: Int64 = 600
    /// Share of drivers on a trip to a geofence. Default: 1/3.
    public var tripShare = 1.0 / 3
    /// Chance per fix that a driver goes offline and later replays the buffer. Default: 0.002.
    public var offlineChance = 0.002
    /// Fixes buffered during an offline gap. Default: 2…24.
    public var offlineLength: ClosedRange<Int> = 2...24
    /// Chance per fix that the producer sends it twice. Default: 0.002.
    public var duplicateChance = 0.002
    /// GPS noise, meters (standard deviation). Default: 6.
    public var gpsNoise = 6.0
    /// Chance per fix of a GPS jump kilometers away. Default: 0.0005.
    public var jumpChance = 0.0005
    /// Start of the simulated day. Default: 2026-01-05T08:00:00Z.
    public var start: UnixMillis = 1_767_600_000_000
    public var seed: UInt64 = 1
    /// Center of the simulated city (Porto).
    public var cityCenter = Coordinate(latitudeE7: 411_496_000, longitudeE7: -86_110_000)
    /// Radius of the city, meters; nil: sized so geofences cover about 30% of it (an urban density
    /// where a driver is inside a geofence now and then, not always inside several).
    public var cityRadius: Double?

    /// Radius of circular geofences, meters. Default: 30…150.
    public var circleRadius: ClosedRange<Double> = 30...150
    /// Half the side of square (polygon) geofences, meters. Default: 30…120.
    public var squareHalfSide: ClosedRange<Double> = 30...120
    /// A rectangular city instead of a disc: geofences and drivers spread uniformly over it,
    /// centered on `cityCenter`. Default: nil (a disc of `effectiveCityRadius`).
    public var cityArea: CityArea?

    /// What makes a fleet worth watching (`tripstream demo`): trips that start and end all the time,
    /// couriers who stop at the wrong store, devices that go quiet, trips scheduled too tight. Off by
    /// default, and drawn from a generator of their own, so the records of a seed without them stay those
    /// of earlier versions (benchmarks and regression seeds keep their meaning).
    public var liveliness = Liveliness()

    /// The city radius in effect.
    public var effectiveCityRadius: Double {
        cityRadius ?? max(3_000, (Double(geofences) * 31_831).squareRoot())
    }

    public init() {}
}

/// A rectangle of a city, meters.
public struct CityArea: Sendable, Equatable {
    public var eastWest: Double
    public var northSouth: Double

    public init(eastWest: Double, northSouth: Double) {
        self.eastWest = eastWest
        self.northSouth = northSouth
    }

    /// The same density of geofences for `factor` times as many: each side times √factor.
    public func scaled(by factor: Double) -> CityArea {
        CityArea(eastWest: eastWest * factor.squareRoot(), northSouth: northSouth * factor.squareRoot())
    }
}
