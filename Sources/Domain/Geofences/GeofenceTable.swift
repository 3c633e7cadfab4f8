/// All geofences, keyed by `tag/externalId`, behind a spatial index. The global table every
/// partition's fold reads; upserts and deletes come from the compacted geofence topic.
///
/// A value with copy-on-write storage: the fold passes it around freely (a few references), and a
/// table being updated from the geofence topic never changes what an in-flight fold sees.
public struct GeofenceTable: Sendable {
    final class Storage: @unchecked Sendable {
        // Safe: written only by `GeofenceTable`'s mutating methods, each through `uniqueStorage()`, after
        // `isKnownUniquelyReferenced`: a storage two tables share (a table sent to the partitions'
        // threads, a copy kept by an in-flight fold) is only read, and the one table that writes it holds
        // the only reference, so no other access, on any thread, can overlap a write (hence no run-time
        // exclusivity checks either). A table reaches another thread only by being sent, after its writes.
        @exclusivity(unchecked) var slotByID = IntegerMap(capacity: 1024)
        @exclusivity(unchecked) var freeSlots: [Int32] = []
        @exclusivity(unchecked) var fingerprint: UInt64 = 0
        /// Deleted geofences, kept to name them in the exits of users who were inside (see `deleted(_:)`).
        @exclusivity(unchecked) var deleted: [UInt64: Geofence] = [:]

        init() {}

        init(copying other: Storage) {
            slotByID = other.slotByID
            freeSlots = other.freeSlots
            fingerprint = other.fingerprint
            deleted = other.deleted
        }
    }

    private var storage = Storage()
    /// The geofences by slot, beside the storage rather than in it, for the grid's reason: read from
    /// the class, the array was retained and released per read (a prefetch of a trip's destination
    /// on every fix, an exit's lookup by hint), a reference count that every partition's thread writes.
    private var slots: [Geofence?] = []
    /// The spatial index, beside the storage rather than in it: a lookup borrows it in place from the
    /// table it is called on, where read from a class it was copied first (its arrays retained and
    /// released per fix, reference counts that every partition's thread writes).
    private var grid = SpatialGrid()

    public init() {}

    /// A table without geofences, shared: a placeholder allocated once.
    static let empty = GeofenceTable()

    public init(_ geofences: [Geofence]) {
        self.init()
        loadingInBulk { table in
            for geofence in geofences { table.upsert(geofence) }
        }
    }

    /// Runs `body`, which upserts and removes many geofences (loading a table), indexing their shapes
    /// once at the end rather than at each change: a dense cell's index is packed once, not once per
    /// geofence added to it. `body` must not look geofences up by position.
    public mutating func loadingInBulk<Result>(_ body: (inout GeofenceTable) throws -> Result) rethrows -> Result {
        grid.beginBulk()
        defer { grid.endBulk() }
        return try body(&self)
    }

    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(copying: storage) }
        return storage
    }

    /// The sum of the geofences' content hashes: equal for tables of equal contents, whatever the
    /// order of their changes or the process that made them (a restarted one included), different
    /// (but for a 2⁻⁶⁴ chance) otherwise. A user's history remembers the fingerprint it was folded
    /// with, and a refold under another table republishes its events.
    public var fingerprint: UInt64 { storage.fingerprint }

    public var count: Int { storage.slotByID.count }

    /// Whether `other` is this very table, not merely an equal one: one storage (every change makes
    /// the storage unique first, so tables sharing one are the same). Comparing costs no reference
    /// count, where assigning a table retains its storage and index.
    func isSameTable(as other: GeofenceTable) -> Bool { storage === other.storage }

    public func geofence(_ id: GeofenceID) -> Geofence? {
        guard let slot = storage.slotByID[id.rawValue] else { return nil }
        return slots[Int(slot)]
    }

    public func geofence(tag: String, externalId: String) -> Geofence? {
        geofence(GeofenceID(tag: tag, externalId: externalId))
    }

    /// The last version of a geofence deleted from this table (and not upserted since), for the exits
    /// of users who were inside. Kept for the life of the table: deletes are rare, and a restart that
    /// no longer sees the tombstone on the compacted topic ends those visits without an event.
    public func deleted(_ id: GeofenceID) -> Geofence? { storage.deleted[id.rawValue] }

    /// The geofence with `id`, trying the slot `hint` first (slots are reused after deletes, so the
    /// geofence there must still have `id`); `hint` is updated to the slot found.
    public func geofence(_ id: GeofenceID, hint: inout Int32) -> Geofence? {
        if hint >= 0, Int(hint) < slots.count, let geofence = slots[Int(hint)], geofence.id == id { return geofence }
        guard let slot = storage.slotByID[id.rawValue] else { return nil }
        hint = slot
        return slots[Int(slot)]
    }

    public mutating func upsert(_ geofence: Geofence) {
        let storage = uniqueStorage()
        storage.fingerprint &+= geofence.contentHash
        if !storage.deleted.isEmpty { storage.deleted[geofence.id.rawValue] = nil }
        if let slot = storage.slotByID[geofence.id.rawValue], let old = slots[Int(slot)] {
            storage.fingerprint &-= old.contentHash
            grid.remove(slot: slot, box: old.geometry.boundingBox)
            slots[Int(slot)] = geofence
            grid.insert(slot: slot, geofence: geofence)
            return
        }
        let slot: Int32
        if let free = storage.freeSlots.popLast() {
            slot = free
            slots[Int(slot)] = geofence
        } else {
            slot = Int32(slots.count)
            slots.append(geofence)
        }
        storage.slotByID[geofence.id.rawValue] = slot
        grid.insert(slot: slot, geofence: geofence)
    }

    @discardableResult
    public mutating func remove(_ id: GeofenceID) -> Geofence? {
        guard let slot = storage.slotByID[id.rawValue], let old = slots[Int(slot)] else { return nil }
        let storage = uniqueStorage()
        storage.fingerprint &-= old.contentHash
        storage.slotByID[id.rawValue] = nil
        grid.remove(slot: slot, box: old.geometry.boundingBox)
        slots[Int(slot)] = nil
        storage.freeSlots.append(slot)
        storage.deleted[id.rawValue] = old
        return old
    }

    /// Every geofence that may contain `point` (bounding-box candidates; callers test exactly),
    /// with its slot.
    public func forEachCandidate(at point: Coordinate, _ body: (Geofence, Int32) -> Void) {
        grid.forEachCandidate(at: point) { slot in
            if let geofence = slots[Int(slot)] { body(geofence, slot) }
        }
    }

    /// Every enabled geofence whose shape holds `point` (signed distance ≤ 0, the exact test of
    /// `GeofenceGeometry.signedDistance`): its id, slot, that distance, its characteristic radius
    /// and whether it has fold options (`Geofence.hasFoldOptions`). Shapes are tested from the
    /// index's entries, without touching geofence objects.
    public func forEachContaining(
        _ point: Coordinate,
        _ body: (_ id: GeofenceID, _ slot: Int32, _ signedDistance: Double, _ characteristicRadius: Double,
                 _ hasFoldOptions: Bool) -> Void
    ) {
        grid.forEachContaining(point, body)
    }

    /// Starts loading one level of what `forEachContaining(point)` will read, without waiting for it:
    /// a hint for an input folded a few later, so that lookups' cache misses overlap (a large table
    /// is read cold). Ask the stages in their order, a few inputs apart.
    @inline(__always)
    public func prefetchLookup(_ point: Coordinate, stage: LookupStage) { grid.prefetchLookup(point, stage: stage) }

    /// The levels of a lookup, each found through the one before: loaded one at a time, a few inputs
    /// apart, none waits on memory; loaded at once, the later ones would wait on the earlier.
    public enum LookupStage: Sendable, CaseIterable {
        /// The cell index's entry for the point's cell.
        case cellIndex
        /// The cell it names.
        case cell
        /// The cell's list of boxes and entries for the point.
        case lists
    }

    /// The signed distance from `point` to the shape of the geofence in `slot` and its characteristic
    /// radius, as `forEachContaining` reports them, if `slot` holds the enabled geofence `id` and it
    /// has no fold options (`Geofence.hasFoldOptions`); nil otherwise. Touches no geofence object.
    public func signedDistance(slot: Int32, id: GeofenceID, to point: Coordinate)
        -> (distance: Double, radius: Double)?
    {
        grid.signedDistance(slot: slot, id: id, to: point)
    }

    /// Starts loading what `signedDistance(slot:id:to:)` reads first for `slot`.
    @inline(__always)
    public func prefetchShape(atSlot slot: Int32) { grid.prefetchEntry(slot: slot) }

    /// Starts loading the geofence object in `slot`, if any (a miss each in a large table, where a fix
    /// enters several at once): its address taken without retaining it (`CachePrefetch.address(of:)`).
    @inline(__always)
    public func prefetchGeofence(atSlot slot: Int32) {
        guard slot >= 0 else { return }
        let object = slots.withUnsafeBufferPointer { Int(slot) < $0.count ? CachePrefetch.address(of: $0[Int(slot)]) : nil }
        if let object { CachePrefetch.read(object, bytes: Self.geofenceObjectBytes, maxLines: 4) }
    }

    /// The bytes of a geofence object the fold reads on entering it: its header and fields up to
    /// `scheduledEnd`, which lay at offset 160 when this was measured (a wrong size costs speed only).
    static let geofenceObjectBytes = 192

    /// The geofence in `slot` (from `forEachContaining` or `forEachCandidate` on this table).
    public func geofence(atSlot slot: Int32) -> Geofence? { slots[Int(slot)] }

    /// All geofences, in id order (deterministic).
    public var all: [Geofence] {
        slots.compactMap { $0 }.sorted { $0.id < $1.id }
    }
}
