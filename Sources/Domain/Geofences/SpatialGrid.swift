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

    /// A geofence in a cell, with its bounding box inline: most candidates are rejected by the box
    /// without touching the geofence object (a cache miss each).
    struct Entry: Sendable {
        var slot: Int32
        var box: BoundingBox
    }

    /// Cell key → index into `cells`.
    private var cellIndex = IntegerMap(capacity: 1024)
    private var cells: [[Entry]] = []
    private(set) var oversized: [Entry] = []

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

    /// Indexes `box` (which may cross the antimeridian: see `BoundingBox`) under `slot`.
    public mutating func insert(slot: Int32, box: BoundingBox) {
        guard let range = Self.cellRanges(box) else { return }
        let entry = Entry(slot: slot, box: box)
        if Self.cellCount(range) > Self.maxCellsPerShape {
            oversized.append(entry)
            return
        }
        for lat in range.lat {
            for lngRange in range.lng {
                for lng in lngRange {
                    let key = UInt64(bitPattern: Self.key(latCell: lat, lngCell: lng))
                    if let index = cellIndex[key] {
                        cells[Int(index)].append(entry)
                    } else {
                        cellIndex[key] = Int32(cells.count)
                        cells.append([entry])
                    }
                }
            }
        }
    }

    public mutating func remove(slot: Int32, box: BoundingBox) {
        guard let range = Self.cellRanges(box) else { return }
        if Self.cellCount(range) > Self.maxCellsPerShape {
            oversized.removeAll { $0.slot == slot }
            return
        }
        for lat in range.lat {
            for lngRange in range.lng {
                for lng in lngRange {
                    // An emptied cell keeps its (empty) list: cells are few and reused by later upserts.
                    if let index = cellIndex[UInt64(bitPattern: Self.key(latCell: lat, lngCell: lng))] {
                        cells[Int(index)].removeAll { $0.slot == slot }
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
            cells[Int(index)].withUnsafeBufferPointer { entries in
                for entry in entries where entry.box.contains(point) { body(entry.slot) }
            }
        }
        for entry in oversized where entry.box.contains(point) { body(entry.slot) }
    }
}
