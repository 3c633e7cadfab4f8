#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The map's knowledge: how fast the fleet moves in each grid cell at each time of the week, as
/// counts of ln(speed) of fix-to-fix steps (`PaceCount`). A cell also keeps a count over the whole
/// week, the fallback when its time-of-week count is still thin, and the fleet keeps one over
/// everything. The ETA reads it through `EtaPaceTable`, built from it once.
///
/// Memory: 24 bytes of payload per entry (8-byte key, 16-byte `PaceCount`) plus the dictionary's
/// slack; entries not seen for `expiryHours` of event time are dropped by `expire`.
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
    static let priorWeight = 20.0
    /// ln(5 m/s): the fleet mean before any step.
    static let initialLogSpeed = 1.609438

    public private(set) var cells: [UInt64: PaceCount] = [:]
    public private(set) var fleet = PaceCount()

    public init() {}

    /// A map as a model file stores it.
    public init(cells: [UInt64: PaceCount], fleet: PaceCount) {
        self.cells = cells
        self.fleet = fleet
    }

    /// The key of `position`'s cell and `bucket` (`wholeWeek` for the week's count).
    public static func key(of position: Coordinate, bucket: UInt8) -> UInt64 { cellKey(of: position) | UInt64(bucket) }

    /// `cellDegrees` in the coordinates' fixed point (10⁻⁷ degree).
    private static let cellE7: Int64 = 50_000

    /// The key of `position`'s cell with a bucket byte of 0: the row from the latitude's integer, the
    /// column from the longitude scaled by cos(latitude). 28 bits of row and 28 of column cover the
    /// globe at this cell size; 8 bits of bucket.
    @inline(__always)
    static func cellKey(of position: Coordinate) -> UInt64 {
        let latitude = Int64(position.latitudeE7)
        let row = (latitude >= 0 ? latitude : latitude - (cellE7 - 1)) / cellE7  // rounded down
        let scaled = Double(position.longitudeE7) * Geodesy.cosine(ofDegrees: Double(position.latitudeE7) * 1e-7)
            / Double(cellE7)
        let truncated = Int64(scaled)  // |scaled| ≤ 36,000
        let column = Double(truncated) > scaled ? truncated - 1 : truncated
        return UInt64(UInt32(truncatingIfNeeded: row) & 0x0FFF_FFFF) << 36
            | UInt64(UInt32(truncatingIfNeeded: column) & 0x0FFF_FFFF) << 8
    }

    /// The time-of-week bucket of `time`: weeks start on Monday 00:00 UTC.
    @inline(__always)
    public static func bucket(of time: UnixMillis) -> UInt8 {
        // 1970-01-01 was a Thursday. Unsigned division by constants (a multiply) for every time since.
        let hourOfWeek = time >= 0 ? Int64((UInt64(time) / 3_600_000 + 72) % 168)
            : ((floorDivide(time, 3_600_000) + 72) % 168 + 168) % 168
        return UInt8(truncatingIfNeeded: hourOfWeek / bucketHours)
    }

    static func hour(of time: UnixMillis) -> UInt32 {
        UInt32(clamping: floorDivide(time, 3_600_000))
    }

    /// Learns a step of `speed` meters per second ending at `position` at `time`.
    public mutating func observe(speed: Double, at position: Coordinate, time: UnixMillis) {
        let value = PaceCount.fixedPoint(log(max(speed, 0.3)))
        let hour = Self.hour(of: time)
        cells[Self.key(of: position, bucket: Self.bucket(of: time)), default: PaceCount()].add(value, hour: hour)
        cells[Self.key(of: position, bucket: Self.wholeWeek), default: PaceCount()].add(value, hour: hour)
        fleet.add(value, hour: hour)
    }

    /// The fleet's mean ln(speed): what a cell's estimate is shrunk toward.
    var priorLogSpeed: Double { fleet.count > 0 ? fleet.mean : Self.initialLogSpeed }

    /// A cell's ln(speed), its count shrunk toward `prior` by `priorWeight` steps.
    static func shrunk(_ count: PaceCount, toward prior: Double) -> Double {
        (Double(count.logSpeedSum) / PaceCount.scale + priorWeight * prior) / (Double(count.count) + priorWeight)
    }

    /// ln(meters per second) the fleet drives at `position` at `time`, as `EtaPaceTable` answers it,
    /// without the steps of `excluded` (a learning fold's own, so that its trips' features come from
    /// other trips, as they will when the model is used). Not for every fix: it hashes two keys.
    public func logSpeed(at position: Coordinate, time: UnixMillis, excluding excluded: EtaPaceMap? = nil)
        -> Double
    {
        let fleetCount = excluded.map { fleet.removing($0.fleet) } ?? fleet
        let prior = fleetCount.count > 0 ? fleetCount.mean : Self.initialLogSpeed
        func count(_ key: UInt64) -> PaceCount? {
            guard let count = cells[key] else { return nil }
            let rest = excluded?.cells[key].map { count.removing($0) } ?? count
            return rest.count > 0 ? rest : nil
        }
        let bucketCount = count(Self.key(of: position, bucket: Self.bucket(of: time)))
        if let bucketCount, bucketCount.count >= Self.trustedCount { return Self.shrunk(bucketCount, toward: prior) }
        guard let week = count(Self.key(of: position, bucket: Self.wholeWeek)) else { return prior }
        return Self.shrunk(week, toward: prior)
    }

    /// Drops the entries not seen for `expiryHours` before `time`.
    public mutating func expire(before time: UnixMillis, expiryHours: UInt32) {
        let now = Self.hour(of: time)
        guard now > expiryHours else { return }
        let oldest = now - expiryHours
        cells = cells.filter { $0.value.lastSeenHour >= oldest }
    }

    /// Another map's counts added to these: exact, so the order of merging does not matter.
    public mutating func merge(_ other: EtaPaceMap) {
        for (key, count) in other.cells { cells[key, default: PaceCount()].merge(count) }
        fleet.merge(other.fleet)
    }

    @inline(__always)
    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}
