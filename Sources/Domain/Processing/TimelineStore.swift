/// The timelines of a partition's users by slot, in fixed-size segments: a growing array would
/// double its capacity and leave up to half of it unused, hundreds of bytes per user at 100,000
/// users; segments waste at most one segment.
struct TimelineStore: Sendable {
    private static let segmentShift = 10
    private static let segmentSize = 1 << segmentShift
    private var segments: [[UserTimeline]] = []
    private(set) var count = 0

    mutating func append(_ timeline: UserTimeline) {
        if count & (Self.segmentSize - 1) == 0 {
            var segment: [UserTimeline] = []
            segment.reserveCapacity(Self.segmentSize)
            segments.append(segment)
        }
        segments[segments.count - 1].append(timeline)
        count += 1
    }

    /// Where `slot`'s timeline lies, valid until the store changes. Reached through the outer
    /// buffer: `segments[i]` on its own retained the segment and released it, on every call.
    @inline(__always)
    private func address(of slot: Int32) -> UnsafeMutablePointer<UserTimeline> {
        segments.withUnsafeBufferPointer { segments in
            segments[Int(slot) >> Self.segmentShift].withUnsafeBufferPointer {
                UnsafeMutablePointer(mutating: $0.baseAddress! + (Int(slot) & (Self.segmentSize - 1)))
            }
        }
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

    /// Starts loading what `slot`'s timeline points to and a fix reads first (see
    /// `UserState.prefetchHeldObjects`): ask once the timeline itself is cached (`prefetch`), or
    /// this waits for it.
    @inline(__always)
    func prefetchHeldObjects(_ slot: Int32) {
        guard slot >= 0, Int(slot) < count else { return }
        // Through its address, as `subscript`'s addressors: the timeline is neither copied nor written.
        let timeline = address(of: slot)
        timeline.pointee.current.prefetchHeldObjects()
        timeline.pointee.tail.prefetchForAppend()
    }

    /// Starts loading what `slot`'s held objects point to: the geofence its trip heads to (see
    /// `UserState.prefetchTripDestination`) and its presences beyond the first. Ask once the trip and
    /// the presences' header are cached (`prefetchHeldObjects`), or this waits for them.
    @inline(__always)
    func prefetchThroughHeldObjects(_ slot: Int32, in geofences: GeofenceTable) {
        guard slot >= 0, Int(slot) < count else { return }
        let timeline = address(of: slot)
        timeline.pointee.current.prefetchTripDestination(in: geofences)
        timeline.pointee.current.prefetchPresences()
    }

    subscript(slot: Int32) -> UserTimeline {
        // By address: reading one field of a timeline loads that field. A `get` copies the whole
        // timeline (hundreds of bytes and their references), and so does a `_read`, which yields a
        // large struct by value: the fold reads a field or two of one per fix.
        unsafeAddress { UnsafePointer(address(of: slot)) }
        unsafeMutableAddress {
            // The segment's buffer is owned by this store and unique (never shared): the pointer stays
            // valid for the access, during which nothing else can touch `segments`.
            segments[Int(slot) >> Self.segmentShift].withUnsafeMutableBufferPointer {
                $0.baseAddress! + (Int(slot) & (Self.segmentSize - 1))
            }
        }
    }
}
