/// The timelines of a partition's users by slot, in fixed-size segments: a growing array would
/// double its capacity and leave up to half of it unused, hundreds of bytes per user at 100,000
/// users; segments waste at most one segment.
///
/// Each segment owns the memory of its timelines (`Segment`), and a timeline stays where it was
/// appended: the fold reaches a timeline through its address, which that memory keeps valid for as
/// long as the segment lives, where an array lends an element's address only to a closure. A value
/// with copy-on-write segments: a store copied, then changed, copies the segments it changes.
struct TimelineStore: Sendable {
    private static let segmentShift = 10
    private static let segmentSize = 1 << segmentShift
    private var segments: [Segment] = []
    private(set) var count = 0

    /// `segmentSize` timelines' memory, the first `count` of them initialized.
    final class Segment: @unchecked Sendable {
        // Safe: the timelines are written only through `TimelineStore`'s mutating members, each on a
        // segment it holds the only reference to (`uniqueSegment`, which copies one another store also
        // holds first); a segment reachable from two stores is only read. A segment reaches another
        // thread only inside a store sent there, so its writes happen before any read there.
        let base = UnsafeMutablePointer<UserTimeline>.allocate(capacity: TimelineStore.segmentSize)
        private(set) var count = 0

        init() {}

        init(copying other: Segment) {
            base.initialize(from: other.base, count: other.count)
            count = other.count
        }

        deinit {
            base.deinitialize(count: count)
            base.deallocate()
        }

        func append(_ timeline: UserTimeline) {
            precondition(count < TimelineStore.segmentSize, "a full timeline segment")
            (base + count).initialize(to: timeline)
            count += 1
        }
    }

    mutating func append(_ timeline: UserTimeline) {
        if count & (Self.segmentSize - 1) == 0 { segments.append(Segment()) }
        uniqueSegment(segments.count - 1).append(timeline)
        count += 1
    }

    /// Segment `index`, copied first if another store holds it too.
    @inline(__always)
    private mutating func uniqueSegment(_ index: Int) -> Segment {
        if !isKnownUniquelyReferenced(&segments[index]) { segments[index] = Segment(copying: segments[index]) }
        return segments[index]
    }

    /// Where `slot`'s timeline lies, in memory its segment owns: valid while this store is not
    /// changed, for reading. The segment's reference is read in place from the outer buffer
    /// (`segments[i]` on its own retained the segment and released it, on every call).
    @inline(__always)
    private func address(of slot: Int32) -> UnsafeMutablePointer<UserTimeline> {
        let start = segments.withUnsafeBufferPointer { $0[Int(slot) >> Self.segmentShift].base }
        return start + (Int(slot) & (Self.segmentSize - 1))
    }

    /// Lends `slot`'s timeline to `body` in place (see `lendInPlace`): passed on as `timelines[slot]`,
    /// it was copied first. `body` only reads it.
    @inline(__always)
    func withTimeline<R>(_ slot: Int32, _ body: (borrowing UserTimeline) -> R) -> R {
        lendInPlace(&address(of: slot).pointee, body)
    }

    /// Starts loading `slot`'s timeline (its inline part: the arrays it points to come when read).
    @inline(__always)
    func prefetch(_ slot: Int32) {
        guard slot >= 0, Int(slot) < count else { return }
        CachePrefetch.read(UnsafeRawPointer(address(of: slot)), bytes: MemoryLayout<UserTimeline>.size, maxLines: 8)
    }

    /// Starts loading the heap objects of `slot`'s timeline that folding a fix reads first: the trip's
    /// box, the presences' header and first presence, the tail's header. Ask once the timeline itself
    /// is cached (`prefetch`), or this waits for it. Through its address, as `subscript`'s addressors:
    /// the timeline is neither copied nor written, and no reference in it retained (`CachePrefetch`).
    @inline(__always)
    func prefetchHeldObjects(_ slot: Int32) {
        guard slot >= 0, Int(slot) < count else { return }
        let timeline = address(of: slot)
        let trip = CachePrefetch.address(of: timeline.pointee.current.tripBox)
        if let trip { CachePrefetch.read(trip, bytes: TripBox.instanceBytes, maxLines: 6) }
        CachePrefetch.read(storageOf: &timeline.pointee.current.presences, elementBytes: MemoryLayout<Presence>.stride,
                           maxLines: 2)
        timeline.pointee.tail.prefetchForAppend()
    }

    /// Starts loading what `slot`'s held objects point to: the geofence its trip heads to, where an
    /// earlier fix found its slot (`TripProgress.destinationSlot`; every fix of a trip reads it), and
    /// the presences beyond the first (a driver in a dense district is in several, and the fold reads
    /// every presence). Ask once the trip and the presences' header are cached (`prefetchHeldObjects`),
    /// or this waits for them. The box is read through its reference in place, not retained (a retain
    /// is two atomic writes); the presences' count says how far to load.
    @inline(__always)
    func prefetchThroughHeldObjects(_ slot: Int32, in geofences: GeofenceTable) {
        guard slot >= 0, Int(slot) < count else { return }
        let timeline = address(of: slot)
        let destination = timeline.pointee.current.tripBox?.value.destinationSlot ?? -1
        if destination >= 0 { geofences.prefetchGeofence(atSlot: destination) }
        // From the second: the lines `prefetchHeldObjects` loaded hold the header and the first.
        CachePrefetch.read(elementsOf: &timeline.pointee.current.presences, from: 1, maxLines: 16)
    }

    subscript(slot: Int32) -> UserTimeline {
        // By address: reading one field of a timeline loads that field. A `get` copies the whole
        // timeline (hundreds of bytes and their references), and so does a `_read`, which yields a
        // large struct by value: the fold reads a field or two of one per fix.
        @inline(__always) unsafeAddress { UnsafePointer(address(of: slot)) }
        @inline(__always) unsafeMutableAddress {
            // This store's own segment (copied first if shared): the address stays valid for the
            // access, during which nothing else can touch the store.
            uniqueSegment(Int(slot) >> Self.segmentShift).base + (Int(slot) & (Self.segmentSize - 1))
        }
    }
}
