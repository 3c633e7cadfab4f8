/// A hash map from 64-bit keys to 32-bit values: open addressing, linear probing, a multiplicative
/// hash. The fold looks up geofence ids and grid cells on every fix; Swift's `Dictionary` hashes
/// with SipHash (seeded, DoS-resistant), which costs more than the whole lookup needs here, where
/// keys are already well-mixed hashes or cell numbers chosen by us, not by an attacker.
public struct IntegerMap: Sendable {
    private var keys: [UInt64]
    private var values: [Int32]
    private var occupied: [Bool]
    public private(set) var count = 0

    public init(capacity: Int = 16) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        keys = [UInt64](repeating: 0, count: size)
        values = [Int32](repeating: 0, count: size)
        occupied = [Bool](repeating: false, count: size)
    }

    @inline(__always)
    private static func index(_ key: UInt64, mask: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9e37_79b9_7f4a_7c15) >> 29) & mask
    }

    public subscript(key: UInt64) -> Int32? {
        get {
            let mask = keys.count - 1
            var i = Self.index(key, mask: mask)
            while occupied[i] {
                if keys[i] == key { return values[i] }
                i = (i + 1) & mask
            }
            return nil
        }
        set {
            if let newValue { insert(key, newValue) } else { remove(key) }
        }
    }

    private mutating func insert(_ key: UInt64, _ value: Int32) {
        if (count + 1) * 2 > keys.count { grow() }
        let mask = keys.count - 1
        var i = Self.index(key, mask: mask)
        while occupied[i] {
            if keys[i] == key {
                values[i] = value
                return
            }
            i = (i + 1) & mask
        }
        occupied[i] = true
        keys[i] = key
        values[i] = value
        count += 1
    }

    private mutating func remove(_ key: UInt64) {
        let mask = keys.count - 1
        var i = Self.index(key, mask: mask)
        while occupied[i] {
            if keys[i] == key { break }
            i = (i + 1) & mask
        }
        guard occupied[i] else { return }
        occupied[i] = false
        count -= 1
        // Re-place the rest of the probe run so lookups never stop early (backward-shift deletion).
        var j = (i + 1) & mask
        while occupied[j] {
            let key = keys[j], value = values[j]
            occupied[j] = false
            count -= 1
            insert(key, value)
            j = (j + 1) & mask
        }
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values, oldOccupied = occupied
        keys = [UInt64](repeating: 0, count: oldKeys.count * 2)
        values = [Int32](repeating: 0, count: oldKeys.count * 2)
        occupied = [Bool](repeating: false, count: oldKeys.count * 2)
        count = 0
        for i in 0..<oldKeys.count where oldOccupied[i] { insert(oldKeys[i], oldValues[i]) }
    }
}
