import Domain
import class Foundation.ProcessInfo

/// What `tripstream replay` folds and where it writes.
public struct ReplayOptions: Sendable {
    public var geofencesPath: String
    public var commandsPath: String?
    public var fixesPath: String
    /// Receives `events.ndjson`, `eta.ndjson` and `dead-letters.ndjson`; created if missing.
    public var outputDirectory: String
    public var settings: FoldSettings
    /// Where the users' history goes while the replay runs (a RocksDB directory, removed at the end);
    /// nil: `<outputDirectory>/.history`.
    public var stateDirectory: String?
    /// Partitions the users are split over by Kafka's default partitioner (murmur2 of the userId),
    /// each with its own fold and stream time, as one partition of `tripstream run`. Default: 12,
    /// the service's default partition count (`RuntimeOptions.partitions`).
    public var partitions = 12
    /// Threads the partitions are folded on (each partition on one thread); the output does not
    /// depend on it. Default: the cores available to the process.
    public var threads = ReplayOptions.availableCores
    /// Bytes of the fixes file read and folded as one block; the output does not depend on it.
    public var readBlockBytes = ReplayJob.fixesBlockBytes
    /// Where to write the fleet ETA model learned from the replayed inputs (`--eta-model-out`,
    /// `schemas/eta-model.md`), the loaded `settings.eta.fleetModel` included; nil: none.
    public var etaModelOutPath: String? {
        didSet { settings.eta.learnsFleetModel = etaModelOutPath != nil }
    }

    /// The cores this process may use (affinity and container limits included).
    public static var availableCores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    public init(geofencesPath: String, commandsPath: String?, fixesPath: String, outputDirectory: String,
                settings: FoldSettings)
    {
        self.geofencesPath = geofencesPath
        self.commandsPath = commandsPath
        self.fixesPath = fixesPath
        self.outputDirectory = outputDirectory
        self.settings = settings
    }

    /// The file each input topic is read from, for dead letters to name.
    var sourceFiles: [String: String] {
        var files = [ReplayJob.geofencesTopic: geofencesPath, ReplayJob.fixesTopic: fixesPath]
        if let commandsPath { files[ReplayJob.commandsTopic] = commandsPath }
        return files
    }
}
