/// A latitude/longitude grid from cells to geofence slots, dense cells listed per sub-cell: the spatial index.
///
/// Fleet geofences are small (tens to hundreds of meters) and a fix asks one question, "which
/// geofences could contain this point", so one dictionary probe per fix beats a tree walk. A shape
/// spanning more than `maxCellsPerShape` cells (a city-sized polygon) goes to a short list that
/// every query checks instead of flooding the grid. A cell's geofences are one packed array,
/// listed per sub-cell in dense cells (`GridCell`).
public struct SpatialGrid: Sendable {
    /// Cell edge in 10⁻⁷ degrees (0.01° ≈ 1.1 km of latitude).
    public static let cellSizeE7: Int64 = 100_000
    public static let maxCellsPerShape = 256
    /// A cell holding more geofences than this lists them per sub-cell (see `GridCell`).
    static let splitThreshold = 32
    /// Sub-cells per side of a split cell: 0.0025° (about 280 m of latitude), so a sub-cell offset fits 16 bits.
    static let subdivisions = 4
    static let subCellSizeE7 = cellSizeE7 / Int64(subdivisions)

    /// A bounding box that does not cross the antimeridian, as a start and spans: a point is inside
    /// when both offsets from the start, taken as unsigned, are within the spans (two compares, no
    /// branch per edge). 16 bytes, so a cell's boxes are scanned in few cache lines.
    struct CellBox: Sendable {
        var minLatE7: Int32
        var minLngE7: Int32
        var latSpan: UInt32
        var lngSpan: UInt32

        /// `box` must be a part (`BoundingBox.parts`): not empty, not crossing.
        init(_ box: BoundingBox) {
            minLatE7 = box.minLatE7
            minLngE7 = box.minLngE7
            latSpan = UInt32(Int64(box.maxLatE7) - Int64(box.minLatE7))
            lngSpan = UInt32(Int64(box.maxLngE7) - Int64(box.minLngE7))
        }

        /// The box packed in two words (see `GridCell`).
        init(words first: UInt64, _ second: UInt64) {
            minLatE7 = Int32(truncatingIfNeeded: first)
            minLngE7 = Int32(truncatingIfNeeded: first >> 32)
            latSpan = UInt32(truncatingIfNeeded: second)
            lngSpan = UInt32(truncatingIfNeeded: second >> 32)
        }

        var words: (UInt64, UInt64) {
            (UInt64(UInt32(bitPattern: minLatE7)) | UInt64(UInt32(bitPattern: minLngE7)) << 32,
             UInt64(latSpan) | UInt64(lngSpan) << 32)
        }

        @inline(__always)
        func contains(latE7: Int64, lngE7: Int64) -> Bool {
            // Both compares, then one branch: most boxes fail one of them unpredictably.
            let inLat = UInt64(bitPattern: latE7 &- Int64(minLatE7)) <= UInt64(latSpan) ? 1 : 0
            let inLng = UInt64(bitPattern: lngE7 &- Int64(minLngE7)) <= UInt64(lngSpan) ? 1 : 0
            return inLat & inLng != 0
        }
    }

    /// What a lookup needs of a geofence beyond its box, inline: id, enabled and fold-options flags, for a circle its
    /// center and radius, for a polygon its frame's origin and where its rings are in `rings`. A
    /// shape is tested exactly without touching the geofence object (a cache miss each, which made
    /// a lookup in a large table slower than in a small one). Packed in 4 words in a `GridCell`.
    struct Entry: Sendable {
        var id: GeofenceID
        /// A circle's center; a polygon's frame origin.
        var center: Coordinate
        /// A circle's radius, meters; NaN for a polygon.
        var radius: Double
        var slot: Int32
        /// A polygon's offset in `SpatialGrid.rings`; -1 for a circle.
        var ringsAt: Int32
        var enabled: Bool
        /// `Geofence.hasFoldOptions`: the fold reads the geofence object too (in the padding: still 40 bytes).
        var hasFoldOptions: Bool

        init(slot: Int32, geofence: Geofence, ringsAt: Int32) {
            self.id = geofence.id
            self.slot = slot
            self.enabled = geofence.enabled
            self.hasFoldOptions = geofence.hasFoldOptions
            self.ringsAt = ringsAt
            switch geofence.geometry.prepared {
            case let .circle(center, radius):
                self.center = center
                self.radius = radius
            case let .polygon(frame, _):
                self.center = frame.origin
                self.radius = .nan
            case .inert:  // never indexed: its box is empty
                self.center = Coordinate(latitudeE7: 0, longitudeE7: 0)
                self.radius = .nan
            }
        }

        /// Words of a packed entry: id; center latitude and longitude; radius; slot with the two flags
        /// in its top bits, and the rings offset.
        static let words = 4
        static let enabledBit: UInt64 = 1 << 30
        static let foldOptionsBit: UInt64 = 1 << 31
        /// Slots must stay below the flags' bits.
        static let maxSlot: Int32 = 1 << 30 - 1

        var packed: (UInt64, UInt64, UInt64, UInt64) {
            (id.rawValue,
             UInt64(UInt32(bitPattern: center.latitudeE7)) | UInt64(UInt32(bitPattern: center.longitudeE7)) << 32,
             radius.bitPattern,
             UInt64(UInt32(bitPattern: slot)) | (enabled ? Self.enabledBit : 0) | (hasFoldOptions ? Self.foldOptionsBit : 0)
                 | UInt64(UInt32(bitPattern: ringsAt)) << 32)
        }

        /// The entry packed at `words[at..<at + Entry.words]`.
        @inline(__always)
        init(_ words: UnsafeBufferPointer<UInt64>, at: Int) {
            id = GeofenceID(rawValue: words[at])
            let center = words[at + 1]
            self.center = Coordinate(latitudeE7: Int32(truncatingIfNeeded: center),
                                     longitudeE7: Int32(truncatingIfNeeded: center >> 32))
            radius = Double(bitPattern: words[at + 2])
            let last = words[at + 3]
            slot = Int32(truncatingIfNeeded: last & UInt64(UInt32(Self.maxSlot)))
            enabled = last & Self.enabledBit != 0
            hasFoldOptions = last & Self.foldOptionsBit != 0
            ringsAt = Int32(truncatingIfNeeded: last >> 32)
        }
    }

    /// A box and what a lookup needs of its geofence: the oversized list's items.
    struct Item: Sendable {
        var box: CellBox
        var entry: Entry
    }

    /// Cell key → index into `cells`.
    private var cellIndex = IntegerMap(capacity: 1024)
    private var cells: [GridCell] = []
    /// Shapes spanning too many cells, one box per part (a box crossing the antimeridian has two), in insertion order.
    private(set) var oversized: [Item] = []
    /// The polygons' rings, where their entries point.
    private var rings = PolygonRings()
    /// Every slot's entry, packed (`Entry.words` words a slot), so that a user already inside a
    /// geofence the fix is not in is tested without the geofence object (see `signedDistance(slot:)`).
    /// An unindexed slot's words are zero: not enabled, so never answered from here.
    private var entriesBySlot: [UInt64] = []
    /// The staged lists of cells (by index) that inserts since `beginBulk` staged, packed by `endBulk`.
    private var staging: [Int: GridCell.Staged] = [:]
    private var isBulk = false
    /// Boxes from which a cell is staged in bulk: below, an insert moves few words, and staging cells
    /// of a city's density (about 140 boxes) built a million geofences in 5.8 s instead of 4.5 and
    /// left lookups in them 20% slower (`bench --lookup-sweep`).
    static let stagingThreshold = 512

    public init() {}

    /// From here to `endBulk`, inserts append to their cells' lists without packing them: loading a
    /// table costs each geofence once instead of once per geofence listed after it in its cell. No
    /// lookup may run in between.
    mutating func beginBulk() { isBulk = true }

    /// Packs every cell staged since `beginBulk`: lookups may run again.
    mutating func endBulk() {
        isBulk = false
        sealStagedCells()
    }

    private mutating func sealStagedCells() {
        for (index, staged) in staging { cells[index].seal(staged) }
        staging.removeAll()
    }

    @inline(__always)
    static func cellNumber(_ e7: Int32) -> Int64 {
        // Floor division so that negative coordinates fall into the right cell.
        let v = Int64(e7)
        return v >= 0 ? v / cellSizeE7 : (v - cellSizeE7 + 1) / cellSizeE7
    }

    @inline(__always)
    static func key(latCell: Int64, lngCell: Int64) -> UInt64 {
        UInt64(bitPattern: (latCell << 32) ^ (lngCell & 0xffff_ffff))
    }

    /// The cells a box covers: one latitude range, and one longitude range, or two for a box
    /// crossing the antimeridian (cells east of 180° and west of -180° are far apart in numbers).
    /// The two never share a cell unless the box spans nearly 360°, and such a box is oversized.
    private static func cellRanges(_ box: BoundingBox) -> (lat: ClosedRange<Int64>, lng: [ClosedRange<Int64>])? {
        let parts = box.parts
        guard !parts.isEmpty else { return nil }
        return (cellNumber(box.minLatE7)...cellNumber(box.maxLatE7),
                parts.map { cellNumber($0.minLngE7)...cellNumber($0.maxLngE7) })
    }

    private static func cellCount(_ range: (lat: ClosedRange<Int64>, lng: [ClosedRange<Int64>])) -> Int {
        range.lat.count * range.lng.reduce(0) { $0 + $1.count }
    }

    /// Indexes `geofence`'s bounding box (which may cross the antimeridian: see `BoundingBox`)
    /// under `slot`.
    public mutating func insert(slot: Int32, geofence: Geofence) {
        let box = geofence.geometry.boundingBox
        guard let range = Self.cellRanges(box) else { return }
        precondition(slot <= Entry.maxSlot, "a slot beyond what a packed entry holds")
        let entry = Entry(slot: slot, geofence: geofence, ringsAt: rings.append(geofence.geometry))
        setEntry(entry, atSlot: slot)
        let parts = box.parts
        if Self.cellCount(range) > Self.maxCellsPerShape {
            for part in parts { oversized.append(Item(box: CellBox(part), entry: entry)) }
            return
        }
        for lat in range.lat {
            for (part, lngRange) in zip(parts, range.lng) {
                // A cell lies in one part's longitudes: it gets that part's box, which does not cross.
                let cellBox = CellBox(part)
                for lng in lngRange {
                    let key = Self.key(latCell: lat, lngCell: lng)
                    let index: Int
                    if let found = cellIndex[key] {
                        index = Int(found)
                    } else {
                        index = cells.count
                        cellIndex[key] = Int32(index)
                        cells.append(GridCell())
                    }
                    if isBulk, cells[index].boxCount >= Self.stagingThreshold, staging[index] == nil {
                        staging[index] = cells[index].stage()
                    }
                    cells[index].append(cellBox, entry, originLatE7: lat * Self.cellSizeE7,
                                        originLngE7: lng * Self.cellSizeE7, staged: &staging[index])
                }
            }
        }
    }

    /// Packs `entry` at `slot` of `entriesBySlot`, growing it as needed.
    private mutating func setEntry(_ entry: Entry, atSlot slot: Int32) {
        let at = Int(slot) * Entry.words
        if entriesBySlot.count < at + Entry.words {
            entriesBySlot.append(contentsOf: repeatElement(0, count: at + Entry.words - entriesBySlot.count))
        }
        let packed = entry.packed
        entriesBySlot[at] = packed.0
        entriesBySlot[at + 1] = packed.1
        entriesBySlot[at + 2] = packed.2
        entriesBySlot[at + 3] = packed.3
    }

    public mutating func remove(slot: Int32, box: BoundingBox) {
        let at = Int(slot) * Entry.words
        if at + Entry.words <= entriesBySlot.count {
            entriesBySlot.replaceSubrange(at..<(at + Entry.words), with: repeatElement(0, count: Entry.words))
        }
        guard let range = Self.cellRanges(box) else { return }
        var removed: Entry?
        if Self.cellCount(range) > Self.maxCellsPerShape {
            removed = oversized.first { $0.entry.slot == slot }?.entry
            oversized.removeAll { $0.entry.slot == slot }
        } else {
            for lat in range.lat {
                for lngRange in range.lng {
                    for lng in lngRange {
                        // An emptied cell keeps its (empty) lists: cells are few and reused by later upserts.
                        if let index = cellIndex[Self.key(latCell: lat, lngCell: lng)],
                            let entry = cells[Int(index)].remove(slot: slot, staged: &staging[Int(index)])
                        {
                            removed = entry
                        }
                    }
                }
            }
        }
        if let ringsAt = removed?.ringsAt, ringsAt >= 0, rings.remove(at: ringsAt) { compactRings() }
    }

    /// Copies the live polygons' rings to a new array and points their entries there.
    private mutating func compactRings() {
        sealStagedCells()  // the cells' polygon entries are moved where lookups read them
        var live: [Int32] = []
        for cell in cells { live += cell.ringOffsets() }
        for item in oversized where item.entry.ringsAt >= 0 { live.append(item.entry.ringsAt) }
        let compaction = rings.compacted(keeping: live)
        rings = compaction.rings
        for index in cells.indices { cells[index].moveRings(compaction.offsets) }
        for index in oversized.indices where oversized[index].entry.ringsAt >= 0 {
            oversized[index].entry.ringsAt = compaction.offsets[oversized[index].entry.ringsAt]!
        }
        for slot in 0..<(entriesBySlot.count / Entry.words) {
            var entry = entriesBySlot.withUnsafeBufferPointer { Entry($0, at: slot * Entry.words) }
            guard entry.id.rawValue != 0, entry.ringsAt >= 0,  // zero words: an empty slot
                let moved = compaction.offsets[entry.ringsAt] else { continue }
            entry.ringsAt = moved
            setEntry(entry, atSlot: Int32(slot))
        }
    }

    /// The index in `cells` of the cell holding `point`, if it has one, and its lower corner.
    @inline(__always)
    private func cell(holding point: Coordinate) -> (index: Int, originLatE7: Int64, originLngE7: Int64)? {
        let latCell = Self.cellNumber(point.latitudeE7), lngCell = Self.cellNumber(point.longitudeE7)
        guard let index = cellIndex[Self.key(latCell: latCell, lngCell: lngCell)] else { return nil }
        return (Int(index), latCell * Self.cellSizeE7, lngCell * Self.cellSizeE7)
    }

    /// Calls `body` with every slot whose bounding box holds `point`: those of the point's cell in
    /// geofence-id order, then the oversized ones in insertion order.
    /// - Complexity: one hash probe plus a box test per geofence of the point's sub-cell.
    public func forEachCandidate(at point: Coordinate, _ body: (Int32) -> Void) {
        assert(!isBulk, "a lookup between beginBulk and endBulk")
        if let cell = cell(holding: point) {
            cells[cell.index].lookup.forEachBatch(holding: point, originLatE7: cell.originLatE7,
                                                  originLngE7: cell.originLngE7) { batch in
                for entry in batch { body(entry.slot) }
            }
        }
        forEachOversized(holding: point) { body($0.slot) }
    }

    /// Calls `body` with the entry of every oversized box holding the point.
    @inline(__always)
    private func forEachOversized(holding point: Coordinate, _ body: (Entry) -> Void) {
        let lat = Int64(point.latitudeE7), lng = Int64(point.longitudeE7)
        oversized.withUnsafeBufferPointer { items in
            for item in items where item.box.contains(latE7: lat, lngE7: lng) { body(item.entry) }
        }
    }

    /// Calls `body` with every enabled geofence whose shape holds `point` (signed distance ≤ 0): its
    /// id, slot, signed distance, characteristic radius and `hasFoldOptions`, each shape tested from its entry (a
    /// polygon with its rings in `rings`). Order: as `forEachCandidate`.
    /// - Complexity: one hash probe plus a box test per geofence of the sub-cell; no geofence object
    ///   is touched.
    @inline(__always)
    func forEachContaining(_ point: Coordinate, _ body: (GeofenceID, Int32, Double, Double, Bool) -> Void) {
        assert(!isBulk, "a lookup between beginBulk and endBulk")
        rings.values.withUnsafeBufferPointer { rings in
            /// `scale`: a polygon's first value in `rings`, its frame's longitude scale.
            @inline(__always)
            func test(_ entry: Entry, scale: Double) {
                guard entry.enabled else { return }
                let shape = Self.signedDistance(entry, scale: scale, rings: rings, to: point)
                if shape.distance <= 0 { body(entry.id, entry.slot, shape.distance, shape.radius, entry.hasFoldOptions) }
            }
            if let cell = cell(holding: point) {
                cells.withUnsafeBufferPointer { cells in
                    cells[cell.index].lookup.forEachBatch(holding: point, originLatE7: cell.originLatE7,
                                                          originLngE7: cell.originLngE7) { batch in
                        ScratchBuffer.with(Double.self, count: batch.count) { scales in
                            // The polygons' first values before any test (a circle reads value 0): their
                            // rings lie apart from the entries, and these loads miss in parallel.
                            if rings.isEmpty {
                                scales.initialize(repeating: 0)
                            } else {
                                for hit in batch.indices {
                                    scales.initializeElement(at: hit, to: rings[Int(max(batch[hit].ringsAt, 0))])
                                }
                            }
                            for hit in batch.indices { test(batch[hit], scale: scales[hit]) }
                        }
                    }
                }
            }
            forEachOversized(holding: point) { test($0, scale: $0.ringsAt < 0 ? 0 : rings[Int($0.ringsAt)]) }
        }
    }

    /// Starts loading, without waiting, one level of what `forEachContaining(point)` reads: the cell
    /// index's entry for the point's cell (`.cellIndex`), the cell it names (`.cell`), or the cell's
    /// list for the point (`.lists`). Each level is found through the one before, so a caller asks
    /// them in that order, a few inputs apart: then no level waits on memory (`GeofenceTable.LookupStage`).
    @inline(__always)
    func prefetchLookup(_ point: Coordinate, stage: GeofenceTable.LookupStage) {
        switch stage {
        case .cellIndex:
            cellIndex.prefetch(Self.key(latCell: Self.cellNumber(point.latitudeE7),
                                        lngCell: Self.cellNumber(point.longitudeE7)))
        case .cell:
            guard let cell = cell(holding: point) else { return }
            cells.withUnsafeBufferPointer { cells in
                CachePrefetch.read(UnsafeRawPointer(cells.baseAddress! + cell.index),
                                   bytes: MemoryLayout<GridCell>.size, maxLines: 3)
            }
        case .lists:
            guard let cell = cell(holding: point) else { return }
            cells.withUnsafeBufferPointer { cells in
                cells[cell.index].lookup.prefetch(holding: point, originLatE7: cell.originLatE7,
                                                  originLngE7: cell.originLngE7)
            }
        }
    }

    /// Starts loading `slot`'s packed entry (what `signedDistance(slot:id:to:)` reads first).
    @inline(__always)
    func prefetchEntry(slot: Int32) {
        let at = Int(slot) * Entry.words
        guard slot >= 0, at + Entry.words <= entriesBySlot.count else { return }
        entriesBySlot.withUnsafeBufferPointer { CachePrefetch.read(UnsafeRawPointer($0.baseAddress! + at)) }
    }

    /// The signed distance from `point` to `entry`'s shape and its characteristic radius: for a
    /// circle the same expression as `GeofenceGeometry.signedDistance`, so the same bits; a polygon
    /// from its rings (`scale`: its first value there).
    @inline(__always)
    private static func signedDistance(
        _ entry: Entry, scale: Double, rings: UnsafeBufferPointer<Double>, to point: Coordinate
    ) -> (distance: Double, radius: Double) {
        if entry.ringsAt < 0 { return (Geodesy.distance(entry.center, point) - entry.radius, entry.radius) }
        let polygon = PolygonRings.signedDistance(
            rings, at: entry.ringsAt, metersPerLngE7: scale, origin: entry.center, to: point)
        return (polygon.distance, polygon.radius)
    }

    /// The signed distance from `point` to the shape in `slot` and its characteristic radius, as
    /// `forEachContaining` reports them, if `slot` holds the enabled geofence `id` and it has no fold
    /// options; nil otherwise (the caller then asks the geofence object). Reads one packed entry
    /// (and a polygon's rings), not the geofence object: a cache miss fewer per visit the fix is
    /// outside of.
    func signedDistance(slot: Int32, id: GeofenceID, to point: Coordinate) -> (distance: Double, radius: Double)? {
        let at = Int(slot) * Entry.words
        guard slot >= 0, at + Entry.words <= entriesBySlot.count else { return nil }
        return entriesBySlot.withUnsafeBufferPointer { words in
            let entry = Entry(words, at: at)
            guard entry.id == id, entry.enabled, !entry.hasFoldOptions else { return nil }
            return rings.values.withUnsafeBufferPointer { rings in
                Self.signedDistance(entry, scale: entry.ringsAt < 0 ? 0 : rings[Int(entry.ringsAt)], rings: rings,
                                    to: point)
            }
        }
    }
}
