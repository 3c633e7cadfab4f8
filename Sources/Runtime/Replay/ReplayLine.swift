import Codec
import Domain
import LZ4IO

/// One line of the fixes file, decoded once, waiting for its partition's fold.
struct ReplayLine {
    enum Content {
        case fix(Fix)
        /// Not a fix: dead-lettered at its turn.
        case invalid(DecodeError)
        /// Skipped by the reader for its length: dead-lettered at its turn.
        case tooLong(LineTooLong)
    }

    var content: Content
    /// The line's bytes, pointing into the reader's buffer: valid until the next block is read.
    var bytes: UnsafeRawBufferPointer
    /// The line number in a file; the Kafka offset of a record of a topic or an archive.
    var number: Int
    /// The record's Kafka timestamp (ms), the moment of the geofence table it is folded with; unused for files.
    var timestamp: Int64 = .min
    /// The record's key (a topic's or an archive's), checked against the userId as `run` checks it; nil for files.
    var key: [UInt8]? = nil
    /// What the fold is asked about this line a few lines ahead (`PartitionFold.prefetch(userHash:…)`),
    /// for a fix: taken once, when the line is decoded (on the decoding threads), and read in place,
    /// as plain values; reading the fix itself copied it (its strings retained and released) at
    /// every stage of the look-ahead, and hashed its userId each time.
    private(set) var lookAhead: LookAhead?

    struct LookAhead {
        var userHash: UInt64
        var location: Coordinate
    }

    init(content: Content, bytes: UnsafeRawBufferPointer, number: Int, timestamp: Int64 = .min, key: [UInt8]? = nil) {
        self.content = content
        self.bytes = bytes
        self.number = number
        self.timestamp = timestamp
        self.key = key
        if case let .fix(fix) = content {
            lookAhead = LookAhead(userHash: PartitionFold.userHash(of: fix.userId), location: fix.position)
        }
    }
}
