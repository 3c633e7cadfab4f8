/// Maps userIds to dense slots without SipHash: a stable 64-bit hash of the id's bytes into an
/// `IntegerMap`, with collisions chained through `next`. The ids themselves live in the
/// timelines; the caller confirms a candidate slot by comparing its id.
struct UserIndex: Sendable {
    private var firstSlot = IntegerMap(capacity: 1024)
    private var next: [Int32] = []

    var count: Int { next.count }

    /// A hash of the id's bytes, eight at a time (FNV's byte loop was 2% of the fold, per fix). It
    /// lives only in memory, so it need not match any persisted hash; the map mixes it again.
    static func hash(_ userId: String) -> UInt64 {
        if let hashed = userId.utf8.withContiguousStorageIfAvailable({ hash(UnsafeRawBufferPointer($0)) }) {
            return hashed
        }
        return Array(userId.utf8).withUnsafeBytes { hash($0) }  // a bridged string: rare
    }

    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var state = 0x9e37_79b9_7f4a_7c15 ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            state = mix(state ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < bytes.count {
            var last: UInt64 = 0
            for index in offset..<bytes.count { last = last << 8 | UInt64(bytes[index]) }
            state = mix(state ^ last)
        }
        return state
    }

    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        let product = value &* 0xbf58_476d_1ce4_e5b9
        return product ^ (product >> 31)
    }

    /// Starts loading where `slot(of:)` will look for the user hashing to `hash`.
    @inline(__always)
    func prefetch(hash: UInt64) { firstSlot.prefetch(hash) }

    /// The first slot of the users hashing to `hash`, unconfirmed: what a prefetch may load ahead.
    @inline(__always)
    func likelySlot(hash: UInt64) -> Int32? { firstSlot[hash] }

    /// The slot of the user whose id `isUser` confirms, among those hashing like `userId`.
    func slot(of userId: String, isUser: (Int32) -> Bool) -> Int32? {
        guard var slot = firstSlot[Self.hash(userId)] else { return nil }
        while true {
            if isUser(slot) { return slot }
            slot = next[Int(slot)]
            if slot < 0 { return nil }
        }
    }

    /// Adds a user known to be absent at a slot freed by `remove`.
    mutating func insert(_ userId: String, at slot: Int32) {
        let hash = Self.hash(userId)
        next[Int(slot)] = firstSlot[hash] ?? -1
        firstSlot[hash] = slot
    }

    /// Forgets the user at `slot`; the slot may be reused with `insert(_:at:)`.
    mutating func remove(_ userId: String, at slot: Int32) {
        let hash = Self.hash(userId)
        guard let first = firstSlot[hash] else { return }
        if first == slot {
            let after = next[Int(slot)]
            firstSlot[hash] = after >= 0 ? after : nil
        } else {
            var previous = first
            while next[Int(previous)] >= 0, next[Int(previous)] != slot { previous = next[Int(previous)] }
            guard next[Int(previous)] == slot else { return }
            next[Int(previous)] = next[Int(slot)]
        }
        next[Int(slot)] = -1
    }

    /// Adds a user known to be absent, at the next slot.
    mutating func insert(_ userId: String) -> Int32 {
        let hash = Self.hash(userId)
        let slot = Int32(next.count)
        next.append(firstSlot[hash] ?? -1)
        firstSlot[hash] = slot
        return slot
    }
}
