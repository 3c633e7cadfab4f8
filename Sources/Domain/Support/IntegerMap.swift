/// A hash map from 64-bit keys to 32-bit values: open addressing, linear probing, a multiplicative
/// hash. The fold looks up users, geofence ids and grid cells on every fix; Swift's `Dictionary`
/// hashes with SipHash (seeded, DoS-resistant), which costs more than the whole lookup needs here,
/// where keys are already well-mixed hashes or cell numbers chosen by us, not by an attacker.
/// Key and value share one 16-byte entry, so a lookup in a large map costs one cache miss.
public struct IntegerMap: Sendable {
    private struct Entry {
        var key: UInt64
        /// -1: empty.
        var value: Int32
    }

    private var entries: [Entry]
    public private(set) var count = 0

    public init(capacity: Int = 16) {
        var size = 16
        while size * 85 < capacity * 100 { size <<= 1 }
        entries = [Entry](repeating: Entry(key: 0, value: -1), count: size)
    }

    @inline(__always)
    private static func index(_ key: UInt64, mask: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9e37_79b9_7f4a_7c15) >> 29) & mask
    }

    /// Starts loading the entry where a lookup of `key` begins (`CachePrefetch`): a hint, no value changes.
    @inline(__always)
    public func prefetch(_ key: UInt64) {
        entries.withUnsafeBufferPointer { entries in
            CachePrefetch.read(UnsafeRawPointer(entries.baseAddress! + Self.index(key, mask: entries.count - 1)))
        }
    }

    /// Values must not be negative.
    public subscript(key: UInt64) -> Int32? {
        get {
            entries.withUnsafeBufferPointer { entries in
                let mask = entries.count - 1
                var i = Self.index(key, mask: mask)
                while entries[i].value >= 0 {
                    if entries[i].key == key { return entries[i].value }
                    i = (i + 1) & mask
                }
                return nil
            }
        }
        set {
            if let newValue {
                precondition(newValue >= 0, "IntegerMap values must not be negative")
                insert(key, newValue)
            } else {
                remove(key)
            }
        }
    }

    private mutating func insert(_ key: UInt64, _ value: Int32) {
        if (count + 1) * 100 > entries.count * 85 { grow() }  // load factor at most 0.85
        let mask = entries.count - 1
        var i = Self.index(key, mask: mask)
        while entries[i].value >= 0 {
            if entries[i].key == key {
                entries[i].value = value
                return
            }
            i = (i + 1) & mask
        }
        entries[i] = Entry(key: key, value: value)
        count += 1
    }

    private mutating func remove(_ key: UInt64) {
        let mask = entries.count - 1
        var i = Self.index(key, mask: mask)
        while entries[i].value >= 0, entries[i].key != key { i = (i + 1) & mask }
        guard entries[i].value >= 0 else { return }
        entries[i].value = -1
        count -= 1
        // Re-place the rest of the probe run so lookups never stop early.
        var j = (i + 1) & mask
        while entries[j].value >= 0 {
            let moved = entries[j]
            entries[j].value = -1
            count -= 1
            insert(moved.key, moved.value)
            j = (j + 1) & mask
        }
    }

    private mutating func grow() {
        let old = entries
        entries = [Entry](repeating: Entry(key: 0, value: -1), count: old.count * 2)
        count = 0
        for entry in old where entry.value >= 0 { insert(entry.key, entry.value) }
    }
}
