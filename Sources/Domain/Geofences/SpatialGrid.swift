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

    private static func cellRange(_ box: BoundingBox) -> (lat: ClosedRange<Int64>, lng: ClosedRange<Int64>)? {
        guard box.minLatE7 <= box.maxLatE7, box.minLngE7 <= box.maxLngE7 else { return nil }
        return (cellNumber(box.minLatE7)...cellNumber(box.maxLatE7), cellNumber(box.minLngE7)...cellNumber(box.maxLngE7))
    }

    public mutating func insert(slot: Int32, box: BoundingBox) {
        guard let range = Self.cellRange(box) else { return }
        let entry = Entry(slot: slot, box: box)
        if range.lat.count * range.lng.count > Self.maxCellsPerShape {
            oversized.append(entry)
            return
        }
        for lat in range.lat {
            for lng in range.lng {
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

    public mutating func remove(slot: Int32, box: BoundingBox) {
        guard let range = Self.cellRange(box) else { return }
        if range.lat.count * range.lng.count > Self.maxCellsPerShape {
            oversized.removeAll { $0.slot == slot }
            return
        }
        for lat in range.lat {
            for lng in range.lng {
                // An emptied cell keeps its (empty) list: cells are few and reused by later upserts.
                if let index = cellIndex[UInt64(bitPattern: Self.key(latCell: lat, lngCell: lng))] {
                    cells[Int(index)].removeAll { $0.slot == slot }
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
