/// Encoded JSON that depends only on an immutable shared object (a `TripPlan`, a `Geofence`), kept by
/// the object's identity so that the many events of one trip or geofence reuse it.
///
/// Two-way set-associative, `capacity` entries (a power of two), allocated on first use. A miss
/// builds the fragment and demotes the set's first entry; the second one is dropped. Each entry
/// holds a strong reference to its object, so its identity cannot be reused by another object
/// while the entry exists.
///
/// A fragment is cut into up to four pieces (`Cuts`) that encoders splice around the parts that
/// vary (a trip's status between its plan's fields).
struct FragmentCache<Object: AnyObject & Sendable>: Sendable {
    /// End offsets of the pieces of one fragment (piece `i` is `ends[i-1]..<ends[i]`, piece 0 starts at 0).
    struct Cuts: Sendable {
        var ends: (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)

        subscript(piece: Int) -> Range<Int> {
            switch piece {
            case 0: 0..<Int(ends.0)
            case 1: Int(ends.0)..<Int(ends.1)
            case 2: Int(ends.1)..<Int(ends.2)
            default: Int(ends.2)..<Int(ends.3)
            }
        }
    }

    /// Identity bits of each entry's object; 0 for an empty entry.
    private var ids: [UInt] = []
    private var owners: [Object?] = []
    private var fragments: [[UInt8]] = []
    private var cuts: [Cuts] = []
    /// Entries; 0 disables the cache (`isEnabled` false).
    let capacity: Int
    private let shift: UInt64

    /// - Parameter capacity: entries, rounded up to a power of two ≥ 2; 0 disables caching.
    init(capacity: Int) {
        guard capacity > 0 else {
            self.capacity = 0
            self.shift = 63
            return
        }
        var entries = 2
        while entries < capacity { entries <<= 1 }
        self.capacity = entries
        // Sets = entries / 2; the top log2(sets) bits of the hash pick the set.
        self.shift = UInt64(64 - (entries / 2).trailingZeroBitCount)
    }

    var isEnabled: Bool { capacity > 0 }

    /// Fragments longer than this are not kept: their object is encoded directly every time.
    static var maxFragmentBytes: Int { 2048 }

    /// The entry for `object`, built by `build` on a miss (`build` writes the fragment and returns its
    /// cuts); nil when the fragment is too long to keep.
    @inline(__always)
    mutating func entry(for object: Object, build: (Object, inout JSONWriter) -> Cuts) -> Int? {
        let id = UInt(bitPattern: ObjectIdentifier(object))
        if ids.isEmpty { allocate() }
        let set = (capacity / 2 == 1) ? 0 : Int(truncatingIfNeeded: (UInt64(id) &* 0x9E37_79B9_7F4A_7C15) >> shift)
        let first = set &* 2
        if ids[first] == id { return first }
        if ids[first &+ 1] == id { return first &+ 1 }
        return insert(object, id: id, at: first, build: build)
    }

    @inline(never)
    private mutating func insert(
        _ object: Object, id: UInt, at first: Int, build: (Object, inout JSONWriter) -> Cuts
    ) -> Int? {
        // Demote the first entry; the second one's storage is reused for the new fragment.
        ids.swapAt(first, first + 1)
        owners.swapAt(first, first + 1)
        fragments.swapAt(first, first + 1)
        cuts.swapAt(first, first + 1)
        ids[first] = id
        owners[first] = object
        var bytes: [UInt8] = []
        swap(&bytes, &fragments[first])
        bytes.removeAll(keepingCapacity: true)
        var made = Cuts()
        JSONWriter.append(to: &bytes) { w in made = build(object, &w) }
        guard bytes.count <= Self.maxFragmentBytes else {
            ids[first] = 0
            owners[first] = nil
            return nil
        }
        fragments[first] = bytes
        cuts[first] = made
        return first
    }

    private mutating func allocate() {
        ids = Array(repeating: 0, count: capacity)
        owners = Array(repeating: nil, count: capacity)
        fragments = Array(repeating: [], count: capacity)
        cuts = Array(repeating: Cuts(), count: capacity)
    }

    /// Appends piece `piece` of entry `entry`'s fragment.
    @inline(__always)
    func write(_ entry: Int, piece: Int, into writer: inout JSONWriter) {
        let range = cuts[entry][piece]
        fragments.withUnsafeBufferPointer { all in
            all[entry].withUnsafeBytes { writer.append(UnsafeRawBufferPointer(rebasing: $0[range])) }
        }
    }

    /// Drops every entry (and the references they hold), keeping nothing allocated.
    mutating func removeAll() {
        ids = []
        owners = []
        fragments = []
        cuts = []
    }
}

