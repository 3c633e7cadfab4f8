/// All geofences, keyed by `tag/externalId`, behind a spatial index. The global table every
/// partition's fold reads; upserts and deletes come from the compacted geofence topic.
public struct GeofenceTable: Sendable {
    private var slots: [Geofence?] = []
    private var slotByID: [GeofenceID: Int32] = [:]
    private var freeSlots: [Int32] = []
    private var grid = SpatialGrid()
    /// Bumped on every change, so that caches of lookups can tell they are stale.
    public private(set) var version: UInt64 = 0

    public init() {}

    public init(_ geofences: [Geofence]) {
        self.init()
        for geofence in geofences { upsert(geofence) }
    }

    public var count: Int { slotByID.count }

    public func geofence(_ id: GeofenceID) -> Geofence? {
        guard let slot = slotByID[id] else { return nil }
        return slots[Int(slot)]
    }

    public func geofence(tag: String, externalId: String) -> Geofence? {
        geofence(GeofenceID(tag: tag, externalId: externalId))
    }

    public mutating func upsert(_ geofence: Geofence) {
        version &+= 1
        if let slot = slotByID[geofence.id], let old = slots[Int(slot)] {
            grid.remove(slot: slot, box: old.geometry.boundingBox)
            slots[Int(slot)] = geofence
            grid.insert(slot: slot, box: geofence.geometry.boundingBox)
            return
        }
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            slots[Int(slot)] = geofence
        } else {
            slot = Int32(slots.count)
            slots.append(geofence)
        }
        slotByID[geofence.id] = slot
        grid.insert(slot: slot, box: geofence.geometry.boundingBox)
    }

    @discardableResult
    public mutating func remove(_ id: GeofenceID) -> Geofence? {
        guard let slot = slotByID.removeValue(forKey: id), let old = slots[Int(slot)] else { return nil }
        version &+= 1
        grid.remove(slot: slot, box: old.geometry.boundingBox)
        slots[Int(slot)] = nil
        freeSlots.append(slot)
        return old
    }

    /// Every geofence that may contain `point` (bounding-box candidates; callers test exactly).
    public func forEachCandidate(at point: Coordinate, _ body: (Geofence) -> Void) {
        grid.forEachCandidate(at: point) { slot in
            if let geofence = slots[Int(slot)], geofence.geometry.boundingBox.contains(point) { body(geofence) }
        }
    }

    /// All geofences, in id order (deterministic).
    public var all: [Geofence] {
        slots.compactMap { $0 }.sorted { $0.id < $1.id }
    }
}
