/// What one archive run did.
public struct ArchiveSummary: Sendable, Equatable {
    /// Records written per topic folder (`locations`, `trip-commands`, `geofences`).
    public var records: [String: Int] = [:]
    /// Uncompressed line bytes written.
    public var bytes = 0
    /// Files finished (renamed into place).
    public var filesFinished = 0
    /// Temporary files of an earlier run deleted at start.
    public var leftoversDeleted = 0
    /// True when the run was abandoned without closing its files (the crash simulation of the tests).
    public var abandoned = false

    public var totalRecords: Int { records.values.reduce(0, +) }

    public init() {}
}
