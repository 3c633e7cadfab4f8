/// The pace map as the ETA reads it on every fix on a trip: each entry's ln(speed), shrunk toward
/// the fleet's and with the week's count standing in for a thin time-of-week one, precomputed when
/// the model is built, in an open-addressing table with a multiplicative hash.
///
/// A dictionary of `UInt64` keys hashed each lookup with SipHash and compared a counted entry;
/// here a lookup is a multiply, a shift and, at most half full, about one probe of 8 bytes.
/// Built once per model and read-only after: 12 bytes per slot, 2–4 slots per map entry.
struct EtaPaceTable: Sendable {
    /// A free slot's key: no key ends in the byte 0xFE (buckets are 0–41, or 0xFF for the week).
    private static let free: UInt64 = 0xFE

    private var keys: [UInt64]
    private var paces: [Float]
    private let shift: UInt64
    /// ln(speed) where the map knows nothing: the fleet's mean.
    let prior: Double

    init(_ map: EtaPaceMap) {
        prior = map.priorLogSpeed
        var capacity = 8
        while capacity < 2 * map.cells.count { capacity *= 2 }
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        keys = Array(repeating: Self.free, count: capacity)
        paces = Array(repeating: 0, count: capacity)
        for (key, count) in map.cells {
            var pace = EtaPaceMap.shrunk(count, toward: prior)
            if key & 0xFF != UInt64(EtaPaceMap.wholeWeek), count.count < EtaPaceMap.trustedCount,
                let week = map.cells[key | UInt64(EtaPaceMap.wholeWeek)]
            {
                pace = EtaPaceMap.shrunk(week, toward: prior)
            }
            var slot = self.slot(of: key)
            while keys[slot] != Self.free { slot = (slot + 1) & (capacity - 1) }
            keys[slot] = key
            paces[slot] = Float(pace)
        }
    }

    @inline(__always)
    private func slot(of key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift) }

    /// The pace under `key`, nil when the map has no such entry.
    @inline(__always)
    private func pace(_ key: UInt64) -> Float? {
        let mask = keys.count - 1
        var slot = slot(of: key)
        while true {
            let found = keys[slot]
            if found == key { return paces[slot] }
            if found == Self.free { return nil }
            slot = (slot + 1) & mask
        }
    }

    /// ln(meters per second) the fleet drives at `position` in the time-of-week `bucket`
    /// (`EtaPaceMap.logSpeed`).
    @inline(__always)
    func logSpeed(at position: Coordinate, bucket: UInt8) -> Double {
        let cell = EtaPaceMap.cellKey(of: position)
        if let pace = pace(cell | UInt64(bucket)) { return Double(pace) }
        if let pace = pace(cell | UInt64(EtaPaceMap.wholeWeek)) { return Double(pace) }
        return prior
    }
}
