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

    subscript(slot: Int32) -> UserTimeline {
        // `_read` lends the element in place: a `get` would copy a whole timeline (three states and
        // their references) just to read one field.
        _read { yield segments[Int(slot) >> Self.segmentShift][Int(slot) & (Self.segmentSize - 1)] }
        _modify { yield &segments[Int(slot) >> Self.segmentShift][Int(slot) & (Self.segmentSize - 1)] }
    }
}
