/// A latitude/longitude grid from cells to geofence slots, dense cells listed per sub-cell: the spatial index.
///
/// Fleet geofences are small (tens to hundreds of meters) and a fix asks one question, "which
/// geofences could contain this point", so one dictionary probe per fix beats a tree walk. A shape
/// spanning more than `maxCellsPerShape` cells (a city-sized polygon) goes to a short list that
/// every query checks instead of flooding the grid.
public struct SpatialGrid: Sendable {
    /// Cell edge in 10⁻⁷ degrees (0.01° ≈ 1.1 km of latitude).
    public static let cellSizeE7: Int64 = 100_000
    public static let maxCellsPerShape = 256
    /// A cell holding more geofences than this also lists them per sub-cell (see `Cell`).
    static let splitThreshold = 32
    /// Sub-cells per side of a split cell: 0.0025° (about 280 m of latitude).
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
    /// a lookup in a large table slower than in a small one). 40 bytes.
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
    }

    /// A box and what a lookup needs of its geofence, side by side (48 bytes): a list of them is
    /// read front to back, one stream of cache lines, instead of a box array, an index list and an
    /// entry array apart (three dependent misses and scattered lines per lookup in a large table).
    struct Item: Sendable {
        var box: CellBox
        var entry: Entry
    }

    /// The geofences of a cell, as items in one contiguous array.
    ///
    /// A cell holding more than `splitThreshold` geofences (a dense district) is split: `items`
    /// then holds the lists of its `subdivisions`² sub-cells (row-major: latitude, then longitude)
    /// one after another, each with a copy of every item whose box overlaps that sub-cell, and
    /// `ends` where each list ends. A lookup there scans one short contiguous list; the copies cost
    /// memory only in dense cells (about 6 per geofence at the dense city's sizes).
    struct Cell: Sendable {
        static let subCells = SpatialGrid.subdivisions * SpatialGrid.subdivisions

        var items: [Item] = []
        /// Split cells: the end of each sub-cell's list in `items`.
        var ends = InlineArray<16, UInt32>(repeating: 0)
        var isSplit = false
        /// Geofence boxes in the cell (a split cell's `items` holds copies).
        private(set) var boxCount = 0

        /// Appends to a cell that is never split (the oversized list).
        mutating func append(_ box: CellBox, _ entry: Entry) {
            items.append(Item(box: box, entry: entry))
            boxCount += 1
        }

        /// Appends to the grid cell with lower corner `origin` (in 10⁻⁷ degrees), splitting it
        /// when it grows past `splitThreshold`.
        mutating func append(_ box: CellBox, _ entry: Entry, originLatE7: Int64, originLngE7: Int64) {
            guard isSplit else {
                append(box, entry)
                if boxCount > SpatialGrid.splitThreshold { split(originLatE7: originLatE7, originLngE7: originLngE7) }
                return
            }
            boxCount += 1
            let item = Item(box: box, entry: entry)
            let cover = Self.subCells(of: box, originLatE7: originLatE7, originLngE7: originLngE7)
            for row in cover.rows {
                for column in cover.columns {
                    // At the end of the sub-cell's list; the lists after it move up by one.
                    let subCell = row * SpatialGrid.subdivisions + column
                    items.insert(item, at: Int(ends[subCell]))
                    for later in subCell..<Self.subCells { ends[later] += 1 }
                }
            }
        }

        /// The sub-cells a box overlaps (clipped to the cell).
        private static func subCells(of box: CellBox, originLatE7: Int64, originLngE7: Int64)
            -> (rows: ClosedRange<Int>, columns: ClosedRange<Int>)
        {
            func subIndex(_ e7: Int64, origin: Int64) -> Int {
                let offset = e7 - origin
                if offset < 0 { return 0 }
                return min(Int(offset / SpatialGrid.subCellSizeE7), SpatialGrid.subdivisions - 1)
            }
            let minLat = Int64(box.minLatE7), minLng = Int64(box.minLngE7)
            return (subIndex(minLat, origin: originLatE7)...subIndex(minLat + Int64(box.latSpan), origin: originLatE7),
                    subIndex(minLng, origin: originLngE7)...subIndex(minLng + Int64(box.lngSpan), origin: originLngE7))
        }

        /// Lists the cell's (distinct, unsplit) items per sub-cell.
        private mutating func split(originLatE7: Int64, originLngE7: Int64) {
            let distinct = items
            items = []
            items.reserveCapacity(distinct.count * 4)
            for subCell in 0..<Self.subCells {
                let row = subCell / SpatialGrid.subdivisions, column = subCell % SpatialGrid.subdivisions
                for item in distinct {
                    let cover = Self.subCells(of: item.box, originLatE7: originLatE7, originLngE7: originLngE7)
                    if cover.rows.contains(row), cover.columns.contains(column) { items.append(item) }
                }
                ends[subCell] = UInt32(items.count)
            }
            isSplit = true
        }

        /// Removes `slot`'s box (a cell holds at most one box of a geofence), from every list of a split cell.
        /// - Returns: the entry removed, if any.
        mutating func remove(slot: Int32) -> Entry? {
            let removed = items.first { $0.entry.slot == slot }?.entry
            guard isSplit else {
                let before = items.count
                items.removeAll { $0.entry.slot == slot }
                boxCount -= before - items.count
                return removed
            }
            var kept: [Item] = []
            kept.reserveCapacity(items.count)
            var start = 0
            for subCell in 0..<Self.subCells {
                for item in items[start..<Int(ends[subCell])] where item.entry.slot != slot { kept.append(item) }
                start = Int(ends[subCell])
                ends[subCell] = UInt32(kept.count)
            }
            if kept.count < items.count { boxCount -= 1 }
            items = kept
            return removed
        }

        /// Moves the polygons' offsets in `rings` after a compaction.
        mutating func moveRings(_ offsets: [Int32: Int32]) {
            for index in items.indices where items[index].entry.ringsAt >= 0 {
                items[index].entry.ringsAt = offsets[items[index].entry.ringsAt]!
            }
        }

        /// Calls `body` with the entry of every item in `range` whose box holds the point.
        @inline(__always)
        private func forEach(in range: Range<Int>, holding point: Coordinate, _ body: (Entry) -> Void) {
            let lat = Int64(point.latitudeE7), lng = Int64(point.longitudeE7)
            items.withUnsafeBufferPointer { items in
                for i in range where items[i].box.contains(latE7: lat, lngE7: lng) { body(items[i].entry) }
            }
        }

        /// Calls `body` with the entry of every box holding the point (a cell never split).
        @inline(__always)
        func forEachInList(holding point: Coordinate, _ body: (Entry) -> Void) {
            forEach(in: 0..<items.count, holding: point, body)
        }

        /// Calls `body` with the entry of every box holding the point, which lies in this grid cell
        /// (lower corner `origin`).
        @inline(__always)
        func forEach(holding point: Coordinate, originLatE7: Int64, originLngE7: Int64, _ body: (Entry) -> Void) {
            guard isSplit else {
                forEachInList(holding: point, body)
                return
            }
            let row = Int((Int64(point.latitudeE7) - originLatE7) / SpatialGrid.subCellSizeE7)
            let column = Int((Int64(point.longitudeE7) - originLngE7) / SpatialGrid.subCellSizeE7)
            let subCell = row * SpatialGrid.subdivisions + column
            let start = subCell == 0 ? 0 : Int(ends[subCell - 1])
            forEach(in: start..<Int(ends[subCell]), holding: point, body)
        }
    }

    /// Cell key → index into `cells`.
    private var cellIndex = IntegerMap(capacity: 1024)
    private var cells: [Cell] = []
    /// Shapes spanning too many cells, one box per part (a box crossing the antimeridian has two).
    private(set) var oversized = Cell()
    /// The polygons' rings, where their entries point.
    private var rings = PolygonRings()

    public init() {}

    @inline(__always)
    static func cellNumber(_ e7: Int32) -> Int64 {
        // Floor division so that negative coordinates fall into the right cell.
        let v = Int64(e7)
        return v >= 0 ? v / cellSizeE7 : (v - cellSizeE7 + 1) / cellSizeE7
    }

    @inline(__always)
    static func key(latCell: Int64, lngCell: Int64) -> Int64 { (latCell << 32) ^ (lngCell & 0xffff_ffff) }

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
        let entry = Entry(slot: slot, geofence: geofence, ringsAt: rings.append(geofence.geometry))
        let parts = box.parts
        if Self.cellCount(range) > Self.maxCellsPerShape {
            for part in parts { oversized.append(CellBox(part), entry) }
            return
        }
        for lat in range.lat {
            for (part, lngRange) in zip(parts, range.lng) {
                // A cell lies in one part's longitudes: it gets that part's box, which does not cross.
                let cellBox = CellBox(part)
                for lng in lngRange {
                    let key = UInt64(bitPattern: Self.key(latCell: lat, lngCell: lng))
                    let index: Int
                    if let found = cellIndex[key] {
                        index = Int(found)
                    } else {
                        index = cells.count
                        cellIndex[key] = Int32(index)
                        cells.append(Cell())
                    }
                    cells[index].append(cellBox, entry, originLatE7: lat * Self.cellSizeE7,
                                        originLngE7: lng * Self.cellSizeE7)
                }
            }
        }
    }

    public mutating func remove(slot: Int32, box: BoundingBox) {
        guard let range = Self.cellRanges(box) else { return }
        var removed: Entry?
        if Self.cellCount(range) > Self.maxCellsPerShape {
            removed = oversized.remove(slot: slot)
        } else {
            for lat in range.lat {
                for lngRange in range.lng {
                    for lng in lngRange {
                        // An emptied cell keeps its (empty) lists: cells are few and reused by later upserts.
                        if let index = cellIndex[UInt64(bitPattern: Self.key(latCell: lat, lngCell: lng))],
                            let entry = cells[Int(index)].remove(slot: slot)
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
        var live: [Int32] = []
        for cell in cells + [oversized] {
            for item in cell.items where item.entry.ringsAt >= 0 { live.append(item.entry.ringsAt) }
        }
        let compaction = rings.compacted(keeping: live)
        rings = compaction.rings
        for index in cells.indices { cells[index].moveRings(compaction.offsets) }
        oversized.moveRings(compaction.offsets)
    }

    /// Calls `body` with every slot whose bounding box holds `point`: those of the point's cell, and
    /// the oversized ones.
    /// - Complexity: one hash probe plus a box test per geofence of the cell (of the sub-cell in a split cell).
    public func forEachCandidate(at point: Coordinate, _ body: (Int32) -> Void) {
        let latCell = Self.cellNumber(point.latitudeE7), lngCell = Self.cellNumber(point.longitudeE7)
        if let index = cellIndex[UInt64(bitPattern: Self.key(latCell: latCell, lngCell: lngCell))] {
            cells[Int(index)].forEach(holding: point, originLatE7: latCell * Self.cellSizeE7,
                                      originLngE7: lngCell * Self.cellSizeE7) { body($0.slot) }
        }
        oversized.forEachInList(holding: point) { body($0.slot) }
    }

    /// Calls `body` with every enabled geofence whose shape holds `point` (signed distance ≤ 0): its
    /// id, slot, signed distance, characteristic radius and `hasFoldOptions`, each shape tested from its entry (a
    /// polygon with its rings in `rings`). Order: as `forEachCandidate`.
    /// - Complexity: one hash probe plus a box test per geofence of the (sub-)cell; no geofence object
    ///   is touched.
    @inline(__always)
    func forEachContaining(_ point: Coordinate, _ body: (GeofenceID, Int32, Double, Double, Bool) -> Void) {
        rings.values.withUnsafeBufferPointer { rings in
            @inline(__always)
            func test(_ entry: Entry) {
                guard entry.enabled else { return }
                if entry.ringsAt < 0 {
                    // The same expression as `GeofenceGeometry.signedDistance`, so the same bits.
                    let distance = Geodesy.distance(entry.center, point) - entry.radius
                    if distance <= 0 { body(entry.id, entry.slot, distance, entry.radius, entry.hasFoldOptions) }
                } else {
                    let polygon = PolygonRings.signedDistance(rings, at: entry.ringsAt, origin: entry.center, to: point)
                    if polygon.distance <= 0 {
                        body(entry.id, entry.slot, polygon.distance, polygon.radius, entry.hasFoldOptions)
                    }
                }
            }
            let latCell = Self.cellNumber(point.latitudeE7), lngCell = Self.cellNumber(point.longitudeE7)
            if let index = cellIndex[UInt64(bitPattern: Self.key(latCell: latCell, lngCell: lngCell))] {
                cells.withUnsafeBufferPointer { cells in
                    cells[Int(index)].forEach(holding: point, originLatE7: latCell * Self.cellSizeE7,
                                              originLngE7: lngCell * Self.cellSizeE7, test)
                }
            }
            oversized.forEachInList(holding: point, test)
        }
    }
}
