import Domain
import KafkaIO

#if canImport(Glibc)
import Glibc
#endif

/// What `tripstream replay --brokers` or `--archive` folds and where it writes.
public struct HistoryReplayOptions: Sendable {
    public enum Source: Sendable {
        /// The topics, with these client properties (`bootstrap.servers` at least); the reader is assign-based and
        /// read_committed.
        case brokers(KafkaConfiguration)
        /// An archive directory written by `tripstream archive`.
        case archive(String)
    }

    public enum Destination: Sendable {
        /// `DIR/{events,eta,dead-letters,trip-summaries}.ndjson` (`.ndjson.lz4` when compressed).
        case files(directory: String, compressed: Bool)
        /// Topics named `prefix` + each output topic's name (`sandbox.tripstream.events`), created if missing; a
        /// prefix that names a production topic is refused.
        case topics(prefix: String, kafka: KafkaConfiguration)
    }

    public var source: Source
    public var destination: Destination
    /// The topics read (with `.brokers`), and named in dead letters.
    public var topics = Topics()
    /// The range, by Kafka record timestamp (ms): from the first record at or after `since` to the last before
    /// `until` (nil: the end offsets at start).
    public var since: Int64
    public var until: Int64?
    /// The Kafka partitions folded (nil: all), each on its own; outputs in ascending order.
    public var partitions: [Int32]?
    /// A geofences file whose table replaces the geofences topic's for the whole run (the what-if; the topic is
    /// then not read); nil: the topic's table as of each record's timestamp.
    public var geofencesPath: String?
    /// Bytes of a partition's records gathered into a block before it is folded (`RecordBlock`); the outputs do
    /// not depend on it.
    public var blockBytes = ReplayJob.fixesBlockBytes
    /// Threads the partitions are folded on (each partition on one); the outputs do not depend on it. Default: the
    /// cores available to the process.
    public var threads = ReplayOptions.availableCores
    public var settings: FoldSettings
    /// Where the users' history goes while the replay runs (removed at the end); nil: `DIR/.history` for files, a
    /// folder in the temporary directory for topics.
    public var stateDirectory: String?

    public init(source: Source, since: Int64, destination: Destination, settings: FoldSettings) {
        self.source = source
        self.since = since
        self.destination = destination
        self.settings = settings
    }
}

extension HistoryReplayOptions {
    /// The history store's folder for this run.
    var historyDirectory: String {
        if let stateDirectory { return stateDirectory }
        switch destination {
        case let .files(directory, _): return directory + "/.history"
        case .topics: return (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp") + "/tripstream-replay-\(getpid())"
        }
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
    /// The selected partitions whose log starts after `since`, records before it gone: the replay may miss them.
    public var cuts: [HistoryCut] = []

    public init() {}
}
