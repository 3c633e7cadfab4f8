import Domain

/// Counters of the glue around the fold: decoding rejections and output volume.
public struct ProcessorCounters: Sendable, Equatable {
    public var recordsIn = 0
    public var geofenceUpserts = 0
    public var geofenceDeletes = 0
    public var deadLetters: [RejectionReason: Int] = [:]

    public init() {}

    public var deadLetterTotal: Int { deadLetters.values.reduce(0, +) }
}
