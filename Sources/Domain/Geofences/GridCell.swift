/// The geofences of one grid cell, packed in one buffer of 64-bit words (`GridWords`): one list, or, in a cell
/// holding more than `SpatialGrid.splitThreshold` geofences (a dense district), one list per sub-cell.
///
/// A lookup in a table of a million geofences finds what it reads cold, so what it costs is the
/// cache lines it touches and how many of those misses wait for one another. Here: the cell (in
/// `SpatialGrid`'s array of cells, small enough to stay cached), then the point's list: its boxes
/// front to back, then the entries (`SpatialGrid.Entry`, 32 bytes) of the boxes holding the point,
/// all gathered before any is tested so that their misses overlap.
///
/// Layout of `words`: the lists one after another, each ending at its `ends` value. A list of n
/// geofences is n boxes, then their n entries, in geofence-id order: the order lookups report them
/// in, and the one the fold matches a user's presences in, which then finds the list sorted. A split
/// cell has `SpatialGrid.subdivisions`² lists (row-major: latitude, then longitude), each box
/// clipped to its sub-cell in one word (`SubCellBox`, eight to a cache line), and a copy of a
/// geofence in every sub-cell its box overlaps. A cell not split has one list (the others
/// empty), of whole boxes in two words (`SpatialGrid.CellBox`): no copies where geofences are sparse.
struct GridCell: Sendable {
    static let lists = SpatialGrid.subdivisions * SpatialGrid.subdivisions
    /// Hits gathered at a time by a lookup: their unpacked entries (40 bytes each) stay within the
    /// 1 KiB that `withUnsafeTemporaryAllocation` places on the stack (above it, a heap allocation
    /// on every lookup).
    static let gathered = 24

    /// All a lookup reads of the cell (see `Lookup`).
    private(set) var lookup = Lookup()
    /// The packed words, in memory their buffer owns (`GridWords`), whose address `lookup` keeps.
    private var words = GridWords() {
        didSet { lookup.words = words.address }
    }
    /// Geofence boxes in the cell (a split cell holds copies).
    private(set) var boxCount = 0

    /// A cell's lists while a table is loaded in bulk (`SpatialGrid.beginBulk`), each appended to at
    /// its end and packed into `words` once, by `seal`. Appending to `words` itself moves every later
    /// word: loading a dense city of 100,000 geofences spent half its time there, a million 80 s. Kept
    /// by `SpatialGrid` beside the cell, not in it: cells are read per lookup, and stay small.
    struct Staged {
        fileprivate var boxes = [[UInt64]](repeating: [], count: GridCell.lists)
        fileprivate var entries = [[UInt64]](repeating: [], count: GridCell.lists)
    }

    init() {}

    /// Where the lists lie in `words`, and the address of `words`' elements: what a lookup reads of
    /// a cell, without a reference. A lookup reads the cell in place, in the table that every
    /// partition's thread shares; a method called on the cell itself copies it first, retaining and
    /// releasing `words` per fix, a reference count that the threads' cores take from one another.
    struct Lookup: @unchecked Sendable {
        // Safe: `words` is `GridWords.address` of the cell's `words`, set by `words`' didSet after
        // every change, so it always names the buffer that cell holds: memory that buffer allocated
        // and frees only in its deinit, and that is never written while another cell, table or
        // thread holds the buffer too (`GridWords` copies a shared buffer before a change). A lookup
        // is read in place from its cell, in a table it borrows, so the buffer lives and is unchanged
        // for as long as the lookup is used; the pointer only ever reads.
        fileprivate(set) var ends = InlineArray<16, UInt32>(repeating: 0)
        fileprivate(set) var isSplit = false
        fileprivate var words: UnsafePointer<UInt64>?

        var boxWords: Int { isSplit ? 1 : 2 }
        var itemWords: Int { boxWords + SpatialGrid.Entry.words }

        /// The words `start..<end` of `list`, its item count and where its entries start.
        @inline(__always)
        func bounds(_ list: Int) -> (start: Int, count: Int, entries: Int) {
            let start = list == 0 ? 0 : Int(ends[list - 1])
            let count = (Int(ends[list]) - start) / itemWords
            return (start, count, start + count * boxWords)
        }
    }

    /// Moves the ends of `list` and every later list by `delta` words.
    private mutating func shiftEnds(from list: Int, by delta: Int) {
        for later in list..<Self.lists { lookup.ends[later] = UInt32(Int(lookup.ends[later]) + delta) }
    }

    /// Moves the lists out of `words`, for appends at their ends until `seal`; no lookup until then.
    mutating func stage() -> Staged {
        var staging = Staged()
        for list in 0..<Self.lists { (staging.boxes[list], staging.entries[list]) = listWords(list, staged: nil) }
        words.removeAll()
        lookup.ends = InlineArray(repeating: 0)
        return staging
    }

    /// Packs `staging` (from `stage`, appended to since) into `words`, for lookups, each list in id order.
    mutating func seal(_ staging: Staged) {
        var packed = GridWords()
        packed.reserveCapacity(staging.boxes.reduce(0) { $0 + $1.count } + staging.entries.reduce(0) { $0 + $1.count })
        var ends = InlineArray<16, UInt32>(repeating: 0)
        let boxWords = lookup.boxWords, entryWords = SpatialGrid.Entry.words
        for list in 0..<Self.lists {
            let boxes = staging.boxes[list], entries = staging.entries[list]
            // Ids are distinct within a list (a cell holds one box of a geofence): the order is total.
            let byID = (0..<(entries.count / entryWords)).sorted { entries[$0 * entryWords] < entries[$1 * entryWords] }
            boxes.withUnsafeBufferPointer { boxes in
                for item in byID { packed.append(contentsOf: boxes[(item * boxWords)..<((item + 1) * boxWords)]) }
            }
            entries.withUnsafeBufferPointer { entries in
                for item in byID { packed.append(contentsOf: entries[(item * entryWords)..<((item + 1) * entryWords)]) }
            }
            ends[list] = UInt32(packed.count)
        }
        words = packed
        lookup.ends = ends
    }

    /// Adds box words and an entry to `list` at the entry's place in id order (staged: at its end,
    /// ordered by `seal`).
    private mutating func append(boxWords box: [UInt64], _ entry: SpatialGrid.Entry, to list: Int,
                                 staged: inout Staged?)
    {
        let packed = entry.packed
        if staged != nil {
            staged!.boxes[list] += box
            staged!.entries[list] += [packed.0, packed.1, packed.2, packed.3]
            return
        }
        let (start, count, entries) = lookup.bounds(list)
        words.reserveCapacity(words.count + box.count + SpatialGrid.Entry.words)  // one growth for both inserts
        let place = words.withUnsafeBufferPointer { words in
            var place = count
            while place > 0, words[entries + (place - 1) * SpatialGrid.Entry.words] > packed.0 { place -= 1 }
            return place
        }
        words.insert(contentsOf: [packed.0, packed.1, packed.2, packed.3], at: entries + place * SpatialGrid.Entry.words)
        words.insert(contentsOf: box, at: start + place * box.count)
        shiftEnds(from: list, by: box.count + SpatialGrid.Entry.words)
    }

    /// The sub-cells' rows or columns a box's `min...max` overlaps in a cell starting at `origin` (clipped to the cell).
    private static func subCells(_ min: Int64, _ max: Int64, origin: Int64) -> ClosedRange<Int> {
        func index(_ e7: Int64) -> Int {
            Swift.min(Int(Swift.max(e7 - origin, 0) / SpatialGrid.subCellSizeE7), SpatialGrid.subdivisions - 1)
        }
        return index(min)...index(max)
    }

    /// Lists `entry` under `box` (a part: not crossing the antimeridian) in the cell with lower
    /// corner `origin` (10⁻⁷ degrees), splitting the cell when it grows past `splitThreshold`.
    /// - Parameter staged: the cell's staged lists, if it is staged (see `stage`).
    mutating func append(_ box: SpatialGrid.CellBox, _ entry: SpatialGrid.Entry, originLatE7: Int64, originLngE7: Int64,
                         staged: inout Staged?)
    {
        boxCount += 1
        guard lookup.isSplit else {
            let words = box.words
            append(boxWords: [words.0, words.1], entry, to: 0, staged: &staged)
            if boxCount > SpatialGrid.splitThreshold {
                split(originLatE7: originLatE7, originLngE7: originLngE7, staged: &staged)
            }
            return
        }
        let minLat = Int64(box.minLatE7), minLng = Int64(box.minLngE7)
        let maxLat = minLat + Int64(box.latSpan), maxLng = minLng + Int64(box.lngSpan)
        for row in Self.subCells(minLat, maxLat, origin: originLatE7) {
            for column in Self.subCells(minLng, maxLng, origin: originLngE7) {
                let subCellBox = SubCellBox(
                    minLatE7: minLat, maxLatE7: maxLat, minLngE7: minLng, maxLngE7: maxLng,
                    originLatE7: originLatE7 + Int64(row) * SpatialGrid.subCellSizeE7,
                    originLngE7: originLngE7 + Int64(column) * SpatialGrid.subCellSizeE7)
                append(boxWords: [subCellBox.word], entry, to: row * SpatialGrid.subdivisions + column, staged: &staged)
            }
        }
    }

    /// Lists the cell's geofences per sub-cell, in the same order.
    private mutating func split(originLatE7: Int64, originLngE7: Int64, staged: inout Staged?) {
        let (boxes, entries) = listWords(0, staged: staged)
        let items = (0..<(boxes.count / 2)).map { index in
            (box: SpatialGrid.CellBox(words: boxes[2 * index], boxes[2 * index + 1]),
             entry: entries.withUnsafeBufferPointer { SpatialGrid.Entry($0, at: index * SpatialGrid.Entry.words) })
        }
        if staged != nil { staged = Staged() }
        words.removeAll()
        lookup.ends = InlineArray(repeating: 0)
        lookup.isSplit = true
        boxCount = 0
        for item in items {
            append(item.box, item.entry, originLatE7: originLatE7, originLngE7: originLngE7, staged: &staged)
        }
    }

    /// The box words and the entry words of `list`, staged or packed.
    private func listWords(_ list: Int, staged: Staged?) -> (boxes: [UInt64], entries: [UInt64]) {
        if let staged { return (staged.boxes[list], staged.entries[list]) }
        let (start, count, entries) = lookup.bounds(list)
        return (words[start..<entries], words[entries..<(entries + count * SpatialGrid.Entry.words)])
    }

    /// Removes `slot`'s box and its copies (a cell holds at most one box of a geofence).
    /// - Returns: its entry, if the cell held it.
    mutating func remove(slot: Int32, staged: inout Staged?) -> SpatialGrid.Entry? {
        var removed: SpatialGrid.Entry?
        for list in 0..<Self.lists {
            if staged != nil {
                let entries = staged!.entries[list].count / SpatialGrid.Entry.words
                guard let (index, entry) = staged!.entries[list].withUnsafeBufferPointer({
                    Self.find(slot, in: $0, entriesAt: 0, count: entries)
                }) else { continue }
                removed = entry
                staged!.entries[list].removeSubrange((index * SpatialGrid.Entry.words)..<((index + 1) * SpatialGrid.Entry.words))
                staged!.boxes[list].removeSubrange((index * lookup.boxWords)..<((index + 1) * lookup.boxWords))
                continue
            }
            let (start, count, entries) = lookup.bounds(list)
            guard let (index, entry) = words.withUnsafeBufferPointer({
                Self.find(slot, in: $0, entriesAt: entries, count: count)
            }) else { continue }
            removed = entry
            let at = entries + index * SpatialGrid.Entry.words
            words.removeSubrange(at..<(at + SpatialGrid.Entry.words))
            words.removeSubrange((start + index * lookup.boxWords)..<(start + (index + 1) * lookup.boxWords))
            shiftEnds(from: list, by: -lookup.itemWords)
        }
        if removed != nil { boxCount -= 1 }
        return removed
    }

    /// The first of the `count` entries packed in `words` from word `start` that is `slot`'s, and its index.
    private static func find(_ slot: Int32, in words: UnsafeBufferPointer<UInt64>, entriesAt start: Int, count: Int)
        -> (index: Int, entry: SpatialGrid.Entry)?
    {
        for index in 0..<count {
            let entry = SpatialGrid.Entry(words, at: start + index * SpatialGrid.Entry.words)
            if entry.slot == slot { return (index, entry) }
        }
        return nil
    }

    /// Calls `body` with every entry of every list and the word it starts at.
    private func forEachEntry(_ body: (_ entry: SpatialGrid.Entry, _ at: Int) -> Void) {
        words.withUnsafeBufferPointer { words in
            for list in 0..<Self.lists {
                let (_, count, entries) = lookup.bounds(list)
                for index in 0..<count {
                    let at = entries + index * SpatialGrid.Entry.words
                    body(SpatialGrid.Entry(words, at: at), at)
                }
            }
        }
    }

    /// The rings offsets of the cell's polygons (repeated per copy).
    func ringOffsets() -> [Int32] {
        var offsets: [Int32] = []
        forEachEntry { entry, _ in if entry.ringsAt >= 0 { offsets.append(entry.ringsAt) } }
        return offsets
    }

    /// Moves the polygons' offsets in `SpatialGrid.rings` after a compaction.
    mutating func moveRings(_ offsets: [Int32: Int32]) {
        var moved: [(at: Int, entry: SpatialGrid.Entry)] = []
        forEachEntry { entry, at in
            guard entry.ringsAt >= 0 else { return }
            var entry = entry
            entry.ringsAt = offsets[entry.ringsAt]!
            moved.append((at, entry))
        }
        for (at, entry) in moved {
            let packed = entry.packed
            words.replace(at: at, with: [packed.0, packed.1, packed.2, packed.3])
        }
    }
}

extension GridCell.Lookup {
    /// Calls `body` with the entries of the boxes holding `point`, which lies in this cell (lower
    /// corner `origin`), in geofence-id order, `gathered` at most at a time.
    @inline(__always)
    func forEachBatch(
        holding point: Coordinate, originLatE7: Int64, originLngE7: Int64,
        _ body: (UnsafeMutableBufferPointer<SpatialGrid.Entry>) -> Void
    ) {
        guard isSplit else {
            let lat = Int64(point.latitudeE7), lng = Int64(point.longitudeE7)
            forEachBatch(in: 0, body) { words, index in
                SpatialGrid.CellBox(words: words[2 &* index], words[2 &* index &+ 1]).contains(latE7: lat, lngE7: lng)
            }
            return
        }
        let (list, lat, lng) = Self.subCell(of: point, originLatE7: originLatE7, originLngE7: originLngE7)
        forEachBatch(in: list, body) { words, index in SubCellBox.contains(words[index], lat: lat, lng: lng) }
    }

    /// The list of a split cell (lower corner `origin`) that holds `point`, and the point's offsets
    /// from that sub-cell's lower corner.
    @inline(__always)
    private static func subCell(of point: Coordinate, originLatE7: Int64, originLngE7: Int64)
        -> (list: Int, lat: UInt32, lng: UInt32)
    {
        let latOffset = Int64(point.latitudeE7) - originLatE7, lngOffset = Int64(point.longitudeE7) - originLngE7
        let row = Int(latOffset / SpatialGrid.subCellSizeE7), column = Int(lngOffset / SpatialGrid.subCellSizeE7)
        return (row * SpatialGrid.subdivisions + column, UInt32(latOffset - Int64(row) * SpatialGrid.subCellSizeE7),
                UInt32(lngOffset - Int64(column) * SpatialGrid.subCellSizeE7))
    }

    /// Starts loading what `forEachBatch(holding:)` will read for `point` (its list's boxes and
    /// entries), without waiting for it.
    @inline(__always)
    func prefetch(holding point: Coordinate, originLatE7: Int64, originLngE7: Int64) {
        guard let base = words else { return }
        let list = isSplit ? Self.subCell(of: point, originLatE7: originLatE7, originLngE7: originLngE7).list : 0
        let (start, count, _) = bounds(list)
        CachePrefetch.read(UnsafeRawPointer(base + start), bytes: count * itemWords * 8, maxLines: 48)
    }

    /// `forEachBatch` in `list`, whose box `index` holds the point when `holds(boxes, index)`
    /// (`boxes`: the words from the list's start).
    @inline(__always)
    private func forEachBatch(
        in list: Int, _ body: (UnsafeMutableBufferPointer<SpatialGrid.Entry>) -> Void,
        holds: (UnsafeBufferPointer<UInt64>, Int) -> Bool
    ) {
        let (start, count, entriesStart) = bounds(list)
        guard count > 0, let base = self.words else { return }
        let words = UnsafeBufferPointer(start: base, count: Int(ends[GridCell.lists - 1]))
        let boxes = UnsafeBufferPointer(rebasing: words[start...])
        withUnsafeTemporaryAllocation(of: Int.self, capacity: GridCell.gathered) { hits in
            withUnsafeTemporaryAllocation(of: SpatialGrid.Entry.self, capacity: GridCell.gathered) { entries in
                var index = 0
                while index < count {
                    // The boxes without a branch: whether a box holds the point is a coin toss, and a
                    // mispredicted branch throws away the loads issued after it. Then the hits'
                    // entries, whose loads do not wait for one another, then `body`.
                    var found = 0
                    let stop = min(count, index + GridCell.gathered)
                    while index < stop {
                        hits[found] = index
                        found &+= holds(boxes, index) ? 1 : 0
                        index &+= 1
                    }
                    for hit in 0..<found {
                        let index = hits[hit]
                        entries.initializeElement(
                            at: hit,
                            to: SpatialGrid.Entry(words, at: entriesStart + index * SpatialGrid.Entry.words))
                    }
                    body(UnsafeMutableBufferPointer(rebasing: entries[0..<found]))
                }
            }
        }
    }
}

/// A box clipped to one sub-cell, as offsets from the sub-cell's lower corner in 10⁻⁷ degrees
/// (below `SpatialGrid.subCellSizeE7`, so 16 bits each): minimum latitude, latitude span,
/// minimum longitude, longitude span, in one word. For a point in that sub-cell it answers as the
/// whole box does.
struct SubCellBox {
    var word: UInt64

    init(minLatE7: Int64, maxLatE7: Int64, minLngE7: Int64, maxLngE7: Int64, originLatE7: Int64, originLngE7: Int64) {
        func clipped(_ min: Int64, _ max: Int64, origin: Int64) -> UInt64 {
            let low = Swift.max(min - origin, 0), high = Swift.min(max - origin, SpatialGrid.subCellSizeE7 - 1)
            return UInt64(low) | UInt64(high - low) << 16
        }
        word = clipped(minLatE7, maxLatE7, origin: originLatE7) | clipped(minLngE7, maxLngE7, origin: originLngE7) << 32
    }

    /// Whether the box `word` holds the point at offsets `lat`, `lng` in its sub-cell: an offset
    /// below the minimum wraps to a large unsigned value, so one compare per axis.
    @inline(__always)
    static func contains(_ word: UInt64, lat: UInt32, lng: UInt32) -> Bool {
        let inLat = lat &- UInt32(word & 0xffff) <= UInt32((word >> 16) & 0xffff) ? 1 : 0
        let inLng = lng &- UInt32((word >> 32) & 0xffff) <= UInt32(word >> 48) ? 1 : 0
        return inLat & inLng != 0
    }
}
