import Domain

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

    public init(geofencesPath: String, commandsPath: String?, fixesPath: String, outputDirectory: String,
                settings: FoldSettings)
    {
        self.geofencesPath = geofencesPath
        self.commandsPath = commandsPath
        self.fixesPath = fixesPath
        self.outputDirectory = outputDirectory
        self.settings = settings
    }
}
