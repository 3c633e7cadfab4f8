/// The projected rings of the spatial index's polygons, in one flat array.
///
/// A polygon is tested from here, not through its geofence object, its enum payload and the arrays
/// behind them: in a table of a million geofences those were three cache misses per polygon
/// holding the point, which made a lookup slower as the table grew. A polygon is stored at an
/// offset as: the frame's longitude scale, the characteristic radius, the ring count, then per
/// ring its value count and its x,y values (`GeofenceGeometry`'s projection, closed).
///
/// Removed polygons leave their values behind until they outweigh the live ones; `compacted` then
/// copies the live ones to a new array.
struct PolygonRings: Sendable {
    private(set) var values: [Double] = []
    /// Values of removed polygons still in `values`.
    private var deadValues = 0

    /// Stores `geometry`'s rings if it is a polygon; returns their offset, or -1.
    mutating func append(_ geometry: GeofenceGeometry) -> Int32 {
        guard case let .polygon(frame, rings) = geometry.prepared else { return -1 }
        let offset = Int32(values.count)
        values.append(frame.metersPerLngE7)
        values.append(geometry.characteristicRadius)
        values.append(Double(rings.count))
        for ring in rings {
            values.append(Double(ring.count))
            values.append(contentsOf: ring)
        }
        return offset
    }

    /// Values of the polygon at `offset`, header included.
    private func length(at offset: Int) -> Int {
        var end = offset + 3
        for _ in 0..<Int(values[offset + 2]) { end += 1 + Int(values[end]) }
        return end - offset
    }

    /// Marks the polygon at `offset` removed; true when removed values now outweigh the live ones.
    mutating func remove(at offset: Int32) -> Bool {
        deadValues += length(at: Int(offset))
        return deadValues > 4096 && deadValues * 2 > values.count
    }

    /// A copy holding only the polygons at `live` offsets (each once, whatever its repeats), and
    /// the new offset of each.
    func compacted(keeping live: [Int32]) -> (rings: PolygonRings, offsets: [Int32: Int32]) {
        var copy = PolygonRings()
        var offsets: [Int32: Int32] = [:]
        for offset in live where offsets[offset] == nil {
            offsets[offset] = Int32(copy.values.count)
            let start = Int(offset)
            copy.values.append(contentsOf: values[start..<start + length(at: start)])
        }
        return (copy, offsets)
    }

    /// The signed distance from `point` to the polygon at `offset` whose frame is centred at
    /// `origin`, and its characteristic radius: the bits `GeofenceGeometry.signedDistance` gives.
    /// `metersPerLngE7`: the polygon's first value, read by the caller (see `SpatialGrid.forEachContaining`).
    @inline(__always)
    static func signedDistance(
        _ values: UnsafeBufferPointer<Double>, at offset: Int32, metersPerLngE7: Double, origin: Coordinate,
        to point: Coordinate
    ) -> (distance: Double, radius: Double) {
        var at = Int(offset)
        let p = LocalFrame(origin: origin, metersPerLngE7: metersPerLngE7).project(point)
        let radius = values[at + 1]
        let ringCount = Int(values[at + 2])
        at += 3
        var scan = GeofenceGeometry.RingScan(x: p.x, y: p.y)
        for _ in 0..<ringCount {
            let count = Int(values[at])
            scan.add(UnsafeBufferPointer(rebasing: values[(at + 1)..<(at + 1 + count)]))
            at += 1 + count
        }
        return (scan.signedDistance, radius)
    }
}
