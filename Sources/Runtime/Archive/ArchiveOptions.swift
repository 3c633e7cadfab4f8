import KafkaIO

/// What `tripstream archive` copies, where, and when it closes a file.
public struct ArchiveOptions: Sendable {
    /// Client properties; `bootstrap.servers` at least. The reader is assign-based and read_committed.
    public var kafka: KafkaConfiguration
    /// The archive's root: one folder per input topic (`locations`, `trip-commands`, `geofences`).
    public var directory: String
    /// Topic names; only the inputs (locations, trip commands, geofences) are read.
    public var topics = Topics()
    /// A file is closed after this many records. Default: 1,000,000.
    public var maxRecordsPerFile = 1_000_000 {
        didSet { precondition(maxRecordsPerFile > 0, "maxRecordsPerFile must be positive") }
    }
    /// A file is closed once it holds this many uncompressed bytes. Default: 256 MiB.
    public var maxBytesPerFile = 256 << 20 {
        didSet { precondition(maxBytesPerFile > 0, "maxBytesPerFile must be positive") }
    }
    /// A file no record was added to for this long (milliseconds) is closed. Default: 60 s.
    public var idleClose: Int64 = 60_000
    /// A file open for this long (milliseconds) is closed, however busy its partition. Default: 15 min.
    public var maxFileAge: Int64 = 900_000
    /// Stop once every partition has reached the end it had at start (closing every file), instead of following.
    /// Default: false.
    public var untilEnd = false
    /// How often the topics' partition counts are checked for new partitions while following (ms). Default: 60 s.
    public var partitionCheckInterval: Int64 = 60_000

    public init(kafka: KafkaConfiguration, directory: String) {
        self.kafka = kafka
        self.directory = directory
    }

    /// The topics archived, each with its folder name.
    var streams: [ArchiveStream] {
        [
            ArchiveStream(topic: topics.locations, folder: "locations"),
            ArchiveStream(topic: topics.tripCommands, folder: "trip-commands"),
            ArchiveStream(topic: topics.geofences, folder: "geofences"),
        ]
    }
}

/// One archived topic.
struct ArchiveStream: Hashable {
    var topic: String
    /// The folder under the archive root; fixed names, so renamed topics keep the archive's layout.
    var folder: String
}
