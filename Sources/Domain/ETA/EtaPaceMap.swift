#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The map's knowledge: how fast the fleet moves in each grid cell at each time of the week, as
/// Welford counts of ln(speed) of fix-to-fix steps. A cell also keeps a count over the whole week,
/// the fallback when its time-of-week count is still thin, and the fleet keeps one over everything.
///
/// Memory: 24 bytes of payload per entry (8-byte key, 16-byte `WelfordCount`) plus the
/// dictionary's slack; entries not seen for `expiryHours` of event time are dropped by `expire`.
public struct EtaPaceMap: Sendable, Equatable {
    /// Cell edge, degrees of latitude (×cos(latitude) for longitude): 0.005° ≈ 556 m.
    public static let cellDegrees = 0.005
    /// Time-of-week bucket width, hours: 42 buckets a week.
    public static let bucketHours: Int64 = 4
    /// The bucket number that stands for "any time of the week".
    static let wholeWeek: UInt8 = 0xFF
    /// Steps a time-of-week count needs before it is used over the cell's whole-week count.
    static let trustedCount: UInt32 = 8
    /// Weight, in steps, of the fleet mean in a cell's estimate.
    static let priorWeight: Float = 20
    /// ln(5 m/s): the fleet mean before any step.
    static let initialLogSpeed: Float = 1.609438

    public private(set) var cells: [UInt64: WelfordCount] = [:]
    public private(set) var fleet = WelfordCount()

    public init() {}

    /// A map as a model file stores it.
    public init(cells: [UInt64: WelfordCount], fleet: WelfordCount) {
        self.cells = cells
        self.fleet = fleet
    }

    /// The key of `position`'s cell and `bucket` (`wholeWeek` for the week's count).
    public static func key(of position: Coordinate, bucket: UInt8) -> UInt64 {
        let latitude = position.latitude
        let row = Int32(clamping: Int64((latitude / cellDegrees).rounded(.down)))
        let column = Int32(clamping: Int64((position.longitude * cos(latitude * .pi / 180) / cellDegrees)
                                                .rounded(.down)))
        // 28 bits of row and 28 of column cover the globe at this cell size; 8 bits of bucket.
        return UInt64(UInt32(bitPattern: row) & 0x0FFF_FFFF) << 36
            | UInt64(UInt32(bitPattern: column) & 0x0FFF_FFFF) << 8 | UInt64(bucket)
    }

    /// The time-of-week bucket of `time`: weeks start on Monday 00:00 UTC.
    public static func bucket(of time: UnixMillis) -> UInt8 {
        let hours = floorDivide(time, 3_600_000) + 72  // 1970-01-01 was a Thursday
        let hourOfWeek = ((hours % 168) + 168) % 168
        return UInt8(hourOfWeek / bucketHours)
    }

    static func hour(of time: UnixMillis) -> UInt32 {
        UInt32(clamping: floorDivide(time, 3_600_000))
    }

    /// Learns a step of `speed` meters per second ending at `position` at `time`.
    public mutating func observe(speed: Double, at position: Coordinate, time: UnixMillis) {
        let value = Float(log(max(speed, 0.3)))
        let hour = Self.hour(of: time)
        cells[Self.key(of: position, bucket: Self.bucket(of: time)), default: WelfordCount()].add(value, hour: hour)
        cells[Self.key(of: position, bucket: Self.wholeWeek), default: WelfordCount()].add(value, hour: hour)
        fleet.add(value, hour: hour)
    }

    /// ln(meters per second) the fleet drives at `position` at `time`: the cell's time-of-week
    /// count when it has enough steps, else its whole-week count, shrunk toward the fleet mean.
    public func logSpeed(at position: Coordinate, time: UnixMillis) -> Double {
        let prior = fleet.count > 0 ? fleet.mean : Self.initialLogSpeed
        var count = cells[Self.key(of: position, bucket: Self.bucket(of: time))]
        if (count?.count ?? 0) < Self.trustedCount { count = cells[Self.key(of: position, bucket: Self.wholeWeek)] }
        guard let count else { return Double(prior) }
        let n = Float(count.count)
        return Double((n * count.mean + Self.priorWeight * prior) / (n + Self.priorWeight))
    }

    /// Drops the entries not seen for `expiryHours` before `time`.
    public mutating func expire(before time: UnixMillis, expiryHours: UInt32) {
        let now = Self.hour(of: time)
        guard now > expiryHours else { return }
        let oldest = now - expiryHours
        cells = cells.filter { $0.value.lastSeenHour >= oldest }
    }

    /// Another map's counts added to these (see `WelfordCount.merge`).
    public mutating func merge(_ other: EtaPaceMap) {
        for (key, count) in other.cells { cells[key, default: WelfordCount()].merge(count) }
        fleet.merge(other.fleet)
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}
