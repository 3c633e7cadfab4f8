import Domain
import KafkaIO

/// What `tripstream replay --brokers` or `--archive` folds and where it writes.
public struct HistoryReplayOptions: Sendable {
    public enum Source: Sendable {
        /// The topics, with these client properties (`bootstrap.servers` at least); the reader is assign-based and
        /// read_committed.
        case brokers(KafkaConfiguration)
        /// An archive directory written by `tripstream archive`.
        case archive(String)
    }

    public var source: Source
    /// The topics read (with `.brokers`), and named in dead letters.
    public var topics = Topics()
    /// The range, by Kafka record timestamp (ms): from the first record at or after `since` to the last before
    /// `until` (nil: the end offsets at start).
    public var since: Int64
    public var until: Int64?
    /// The Kafka partitions folded (nil: all), each on its own, in ascending order.
    public var partitions: [Int32]?
    /// Receives `events.ndjson`, `eta.ndjson`, `dead-letters.ndjson`, `trip-summaries.ndjson`; created if missing.
    public var outputDirectory: String
    public var settings: FoldSettings
    /// Where the users' history goes while the replay runs (removed at the end); nil: `<outputDirectory>/.history`.
    public var stateDirectory: String?

    public init(source: Source, since: Int64, outputDirectory: String, settings: FoldSettings) {
        self.source = source
        self.since = since
        self.outputDirectory = outputDirectory
        self.settings = settings
    }
}

/// What a replay of history did, beyond the fold's figures: the ranges read and what compaction lost.
public struct HistoryReplaySummary: Sendable {
    public var replay = ReplaySummary()
    /// The partitions folded.
    public var partitions: [Int32] = []
    /// Geofence keys whose earliest surviving record is later than `since`, with that record's timestamp: what the
    /// table held for them before it was compacted away (taken as absent).
    public var geofencesUnknownBefore: [(key: String, since: Int64)] = []

    public init() {}
}
