import Domain

/// Counters of the glue around the fold: decoding rejections and output volume.
public struct ProcessorCounters: Sendable, Equatable {
    public var recordsIn = 0
    public var geofenceUpserts = 0
    public var geofenceDeletes = 0
    public var deadLetters: [RejectionReason: Int] = [:]
    /// Trip commands naming a destination geofence that was not in the table when they were folded: their
    /// trips get no ETA and never arrive (their other events flow). Not dead letters: the geofence may
    /// come later.
    public var unknownDestinations = 0
    /// The first such destination, `tag/externalId`, for the warning.
    public var unknownDestinationExample: String?

    public init() {}

    public var deadLetterTotal: Int { deadLetters.values.reduce(0, +) }
}
