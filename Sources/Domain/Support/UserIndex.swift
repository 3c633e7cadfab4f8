/// Maps userIds to dense slots without SipHash: a stable 64-bit hash of the id's bytes into an
/// `IntegerMap`, with collisions chained through `next`. The ids themselves live in the
/// timelines; the caller confirms a candidate slot by comparing its id.
struct UserIndex: Sendable {
    private var firstSlot = IntegerMap(capacity: 1024)
    private var next: [Int32] = []

    var count: Int { next.count }

    static func hash(_ userId: String) -> UInt64 {
        var hasher = StableHasher()
        hasher.combine(userId)
        return hasher.state  // the FNV state: the map mixes it again
    }

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
