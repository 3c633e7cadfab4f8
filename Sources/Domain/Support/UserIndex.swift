/// Maps userIds to dense slots without SipHash: a stable 64-bit hash of the id's bytes into an
/// `IntegerMap`, with collisions chained through `next` and resolved by comparing the ids.
struct UserIndex: Sendable {
    private var firstSlot = IntegerMap(capacity: 1024)
    private var ids: [String] = []
    private var hashes: [UInt64] = []
    private var next: [Int32] = []

    var count: Int { ids.count }

    static func hash(_ userId: String) -> UInt64 {
        var hasher = StableHasher()
        hasher.combine(userId)
        return hasher.state  // the FNV state: the map mixes it again
    }

    func slot(of userId: String) -> Int32? {
        let hash = Self.hash(userId)
        guard var slot = firstSlot[hash] else { return nil }
        while true {
            if hashes[Int(slot)] == hash, ids[Int(slot)] == userId { return slot }
            slot = next[Int(slot)]
            if slot < 0 { return nil }
        }
    }

    /// Adds a user known to be absent; returns its slot.
    mutating func insert(_ userId: String) -> Int32 {
        let hash = Self.hash(userId)
        let slot = Int32(ids.count)
        ids.append(userId)
        hashes.append(hash)
        next.append(firstSlot[hash] ?? -1)
        firstSlot[hash] = slot
        return slot
    }
}
