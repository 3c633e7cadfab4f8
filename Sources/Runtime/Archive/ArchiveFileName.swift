import Codec

/// File and folder names of the archive: `<folder>/date=YYYY-MM-DD/part-PPPPP-FFFFFFFFFFFF-NNNNNNNNNNNN.ndjson.lz4`,
/// with the partition, the first offset and the next offset (last offset + 1) of the records inside. An unfinished
/// file is `.part-PPPPP-FFFFFFFFFFFF.ndjson.lz4.tmp` in the same folder: hidden, and never read as archive.
struct ArchiveFileName: Hashable {
    var partition: Int32
    var firstOffset: Int64
    var nextOffset: Int64

    static let suffix = ".ndjson.lz4"
    static let temporaryPrefix = ".part-"
    static let temporarySuffix = ".ndjson.lz4.tmp"

    var name: String {
        "part-\(Self.padded(Int64(partition), 5))-\(Self.padded(firstOffset, 12))-\(Self.padded(nextOffset, 12))"
            + Self.suffix
    }

    static func temporaryName(partition: Int32, firstOffset: Int64) -> String {
        temporaryPrefix + "\(padded(Int64(partition), 5))-\(padded(firstOffset, 12))" + temporarySuffix
    }

    /// Parses a finished file's name; `nil` for anything else.
    init?(parsing name: String) {
        guard name.hasPrefix("part-"), name.hasSuffix(Self.suffix) else { return nil }
        let fields = name.dropFirst(5).dropLast(Self.suffix.count)
            .split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count == 3, let partition = Int32(fields[0]), let first = Int64(fields[1]),
            let next = Int64(fields[2]), partition >= 0, first >= 0, next > first
        else { return nil }
        self.init(partition: partition, firstOffset: first, nextOffset: next)
    }

    init(partition: Int32, firstOffset: Int64, nextOffset: Int64) {
        self.partition = partition
        self.firstOffset = firstOffset
        self.nextOffset = nextOffset
    }

    /// `date=YYYY-MM-DD` of a Kafka timestamp, in UTC; `date=unknown` when the broker gave none (-1).
    static func dateFolder(timestamp: Int64) -> String {
        guard timestamp >= 0 else { return "date=unknown" }
        return "date=" + RFC3339.string(timestamp).prefix(10)  // YYYY-MM-DD of YYYY-MM-DDThh:mm:ss.sssZ
    }

    private static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
