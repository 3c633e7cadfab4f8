/// A uniform latitude/longitude grid from cells to geofence slots: the spatial index.
///
/// Fleet geofences are small (tens to hundreds of meters) and a fix asks one question, "which
/// geofences could contain this point", so one dictionary probe per fix beats a tree walk. A shape
/// spanning more than `maxCellsPerShape` cells (a city-sized polygon) goes to a short list that
/// every query checks instead of flooding the grid.
public struct SpatialGrid: Sendable {
    /// Cell edge in 10⁻⁷ degrees (0.01° ≈ 1.1 km of latitude).
    public static let cellSizeE7: Int64 = 100_000
    public static let maxCellsPerShape = 256

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

    /// What a lookup needs of a geofence beyond its box, inline: id, enabled flag, and for a circle
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

        init(slot: Int32, geofence: Geofence) {
            self.id = geofence.id
            self.slot = slot
            self.enabled = geofence.enabled
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
    struct Cell: Sendable {
        var boxes: [CellBox] = []
        var entries: [Entry] = []

        mutating func append(_ box: CellBox, _ entry: Entry) {
            boxes.append(box)
            entries.append(entry)
        }

        mutating func remove(slot: Int32) {
            var i = 0
            while i < entries.count {
                if entries[i].slot == slot {
                    entries.remove(at: i)
                    boxes.remove(at: i)
                } else {
                    i += 1
                }
            }
        }

        /// Calls `body` with the entry of every box holding the point.
        @inline(__always)
        func forEach(holding point: Coordinate, _ body: (Entry) -> Void) {
            let lat = Int64(point.latitudeE7), lng = Int64(point.longitudeE7)
            boxes.withUnsafeBufferPointer { boxes in
                entries.withUnsafeBufferPointer { entries in
                    for i in 0..<boxes.count where boxes[i].contains(latE7: lat, lngE7: lng) { body(entries[i]) }
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
                    if let index = cellIndex[key] {
                        cells[Int(index)].append(cellBox, entry)
                    } else {
                        cellIndex[key] = Int32(cells.count)
                        var cell = Cell()
                        cell.append(cellBox, entry)
                        cells.append(cell)
                    }
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
                        cells[Int(index)].remove(slot: slot)
                    }
                }
            }
        }
    }

    /// Calls `body` with every slot whose bounding box holds `point`: those of the point's cell, and
    /// the oversized ones.
    /// - Complexity: one hash probe plus a box test per geofence of the cell.
    public func forEachCandidate(at point: Coordinate, _ body: (Int32) -> Void) {
        let key = Self.key(latCell: Self.cellNumber(point.latitudeE7), lngCell: Self.cellNumber(point.longitudeE7))
        if let index = cellIndex[UInt64(bitPattern: key)] {
            cells[Int(index)].forEach(holding: point) { body($0.slot) }
        }
        oversized.forEach(holding: point) { body($0.slot) }
    }

    /// Calls `body` with every enabled geofence whose shape holds `point` (signed distance ≤ 0): its
    /// id, slot, signed distance and characteristic radius. A circle is tested from its entry;
    /// another shape through `slots`, the table's geofences. Order: as `forEachCandidate`.
    /// - Complexity: one hash probe plus a box test per geofence of the cell; a geofence object is
    ///   touched only for a polygon whose box holds the point.
    @inline(__always)
    func forEachContaining(
        _ point: Coordinate, slots: UnsafeBufferPointer<Geofence?>,
        _ body: (GeofenceID, Int32, Double, Double) -> Void
    ) {
        @inline(__always)
        func test(_ entry: Entry) {
            guard entry.enabled else { return }
            if !entry.radius.isNaN {
                // The same expression as `GeofenceGeometry.signedDistance`, so the same bits.
                let distance = Geodesy.distance(entry.center, point) - entry.radius
                if distance <= 0 { body(entry.id, entry.slot, distance, entry.radius) }
            } else if let geofence = slots[Int(entry.slot)] {
                let distance = geofence.geometry.signedDistance(to: point)
                if distance <= 0 { body(entry.id, entry.slot, distance, geofence.geometry.characteristicRadius) }
            }
        }
        let key = Self.key(latCell: Self.cellNumber(point.latitudeE7), lngCell: Self.cellNumber(point.longitudeE7))
        if let index = cellIndex[UInt64(bitPattern: key)] {
            cells[Int(index)].forEach(holding: point, test)
        }
        oversized.forEach(holding: point, test)
    }
}
