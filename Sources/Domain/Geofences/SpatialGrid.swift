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

    /// What a lookup needs of a geofence beyond its box, inline: id, enabled and fold-options flags, and for a circle
    /// its center and radius. A circle is tested exactly without touching the geofence object (a
    /// cache miss each, which made a lookup in a large table slower than in a small one). 32 bytes.
    struct Entry: Sendable {
        var id: GeofenceID
        /// A circle's center; unused for other shapes.
        var center: Coordinate
        /// A circle's radius, meters; NaN for other shapes (tested through the geofence object).
        var radius: Double
        var slot: Int32
        var enabled: Bool
        /// `Geofence.hasFoldOptions`: the fold reads the geofence object too (in the padding: still 32 bytes).
        var hasFoldOptions: Bool

        init(slot: Int32, geofence: Geofence) {
            self.id = geofence.id
            self.slot = slot
            self.enabled = geofence.enabled
            self.hasFoldOptions = geofence.hasFoldOptions
            if case let .circle(center, radius) = geofence.geometry.prepared {
                self.center = center
                self.radius = radius
            } else {
                self.center = Coordinate(latitudeE7: 0, longitudeE7: 0)
                self.radius = .nan
            }
        }
    }

    /// The geofences of a cell: their boxes, scanned on every lookup, apart from their entries,
    /// read only for a box holding the point (`boxes[i]` belongs to `entries[i]`).
    ///
    /// A cell holding more than `splitThreshold` geofences (a dense district) also lists, for each
    /// of its `subdivisions`² sub-cells, the indices of the boxes overlapping it, so a lookup there
    /// tests a sub-cell's short list of this cell's boxes instead of all of them. The boxes and
    /// entries stay once per cell, contiguous: a split costs 4 bytes per (box, sub-cell) pair, and
    /// only in dense cells; a sparse cell pays for an empty `sub`.
    struct Cell: Sendable {
        var boxes: [CellBox] = []
        var entries: [Entry] = []
        /// Empty, or per sub-cell (row-major: latitude, then longitude) the indices into `boxes`
        /// of the boxes overlapping it, ascending.
        var sub: [[UInt32]] = []

        /// Appends to a cell that is never split (the oversized list).
        mutating func append(_ box: CellBox, _ entry: Entry) {
            boxes.append(box)
            entries.append(entry)
        }

        /// Appends to the grid cell with lower corner `origin` (in 10⁻⁷ degrees), splitting it
        /// when it grows past `splitThreshold`.
        mutating func append(_ box: CellBox, _ entry: Entry, originLatE7: Int64, originLngE7: Int64) {
            append(box, entry)
            if !sub.isEmpty {
                list(boxes.count - 1, originLatE7: originLatE7, originLngE7: originLngE7)
            } else if boxes.count > SpatialGrid.splitThreshold {
                split(originLatE7: originLatE7, originLngE7: originLngE7)
            }
        }

        private mutating func split(originLatE7: Int64, originLngE7: Int64) {
            sub = Array(repeating: [], count: SpatialGrid.subdivisions * SpatialGrid.subdivisions)
            for index in boxes.indices { list(index, originLatE7: originLatE7, originLngE7: originLngE7) }
        }

        /// Adds `boxes[index]` to the lists of the sub-cells it overlaps (clipped to the cell).
        private mutating func list(_ index: Int, originLatE7: Int64, originLngE7: Int64) {
            func subIndex(_ e7: Int64, origin: Int64) -> Int {
                let offset = e7 - origin
                if offset < 0 { return 0 }
                return min(Int(offset / SpatialGrid.subCellSizeE7), SpatialGrid.subdivisions - 1)
            }
            let box = boxes[index]
            let minLat = Int64(box.minLatE7), minLng = Int64(box.minLngE7)
            let rows = subIndex(minLat, origin: originLatE7)...subIndex(minLat + Int64(box.latSpan), origin: originLatE7)
            let columns =
                subIndex(minLng, origin: originLngE7)...subIndex(minLng + Int64(box.lngSpan), origin: originLngE7)
            for row in rows {
                for column in columns { sub[row * SpatialGrid.subdivisions + column].append(UInt32(index)) }
            }
        }

        /// Removes `slot`'s boxes; a split cell (lower corner `origin`) lists its sub-cells again.
        mutating func remove(slot: Int32, originLatE7: Int64 = 0, originLngE7: Int64 = 0) {
            var i = 0
            var removed = false
            while i < entries.count {
                if entries[i].slot == slot {
                    entries.remove(at: i)
                    boxes.remove(at: i)
                    removed = true
                } else {
                    i += 1
                }
            }
            if removed, !sub.isEmpty { split(originLatE7: originLatE7, originLngE7: originLngE7) }
        }

        /// Calls `body` with the entry of every box holding the point.
        @inline(__always)
        func forEachInList(holding point: Coordinate, _ body: (Entry) -> Void) {
            let lat = Int64(point.latitudeE7), lng = Int64(point.longitudeE7)
            boxes.withUnsafeBufferPointer { boxes in
                entries.withUnsafeBufferPointer { entries in
                    for i in 0..<boxes.count where boxes[i].contains(latE7: lat, lngE7: lng) { body(entries[i]) }
                }
            }
        }

        /// Calls `body` with the entry of every box holding the point, which lies in this grid cell
        /// (lower corner `origin`).
        @inline(__always)
        func forEach(holding point: Coordinate, originLatE7: Int64, originLngE7: Int64, _ body: (Entry) -> Void) {
            if sub.isEmpty {
                forEachInList(holding: point, body)
                return
            }
            let lat = Int64(point.latitudeE7), lng = Int64(point.longitudeE7)
            let row = Int((lat - originLatE7) / SpatialGrid.subCellSizeE7)
            let column = Int((lng - originLngE7) / SpatialGrid.subCellSizeE7)
            sub[row * SpatialGrid.subdivisions + column].withUnsafeBufferPointer { list in
                boxes.withUnsafeBufferPointer { boxes in
                    entries.withUnsafeBufferPointer { entries in
                        for i in list where boxes[Int(i)].contains(latE7: lat, lngE7: lng) { body(entries[Int(i)]) }
                    }
                }
            }
        }
    }

    /// Cell key → index into `cells`.
    private var cellIndex = IntegerMap(capacity: 1024)
    private var cells: [Cell] = []
    /// Shapes spanning too many cells, one box per part (a box crossing the antimeridian has two).
    private(set) var oversized = Cell()

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
        let entry = Entry(slot: slot, geofence: geofence)
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
        if Self.cellCount(range) > Self.maxCellsPerShape {
            oversized.remove(slot: slot)
            return
        }
        for lat in range.lat {
            for lngRange in range.lng {
                for lng in lngRange {
                    // An emptied cell keeps its (empty) lists: cells are few and reused by later upserts.
                    if let index = cellIndex[UInt64(bitPattern: Self.key(latCell: lat, lngCell: lng))] {
                        cells[Int(index)].remove(slot: slot, originLatE7: lat * Self.cellSizeE7,
                                                 originLngE7: lng * Self.cellSizeE7)
                    }
                }
            }
        }
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
    /// id, slot, signed distance, characteristic radius and `hasFoldOptions`. A circle is tested from its entry;
    /// another shape through `slots`, the table's geofences. Order: as `forEachCandidate`.
    /// - Complexity: one hash probe plus a box test per geofence of the (sub-)cell; a geofence object is
    ///   touched only for a polygon whose box holds the point.
    @inline(__always)
    func forEachContaining(
        _ point: Coordinate, slots: UnsafeBufferPointer<Geofence?>,
        _ body: (GeofenceID, Int32, Double, Double, Bool) -> Void
    ) {
        @inline(__always)
        func test(_ entry: Entry) {
            guard entry.enabled else { return }
            if !entry.radius.isNaN {
                // The same expression as `GeofenceGeometry.signedDistance`, so the same bits.
                let distance = Geodesy.distance(entry.center, point) - entry.radius
                if distance <= 0 { body(entry.id, entry.slot, distance, entry.radius, entry.hasFoldOptions) }
            } else if let geofence = slots[Int(entry.slot)] {
                let distance = geofence.geometry.signedDistance(to: point)
                if distance <= 0 {
                    body(entry.id, entry.slot, distance, geofence.geometry.characteristicRadius, entry.hasFoldOptions)
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
