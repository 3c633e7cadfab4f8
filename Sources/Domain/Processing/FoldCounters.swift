/// What a partition's fold did, for the summary and the metrics endpoint.
public struct FoldCounters: Sendable, Equatable {
    public var fixes = 0
    public var commands = 0
    public var duplicates = 0
    /// Refolds: each places one or more late inputs of a user.
    public var rewinds = 0
    /// Inputs that arrived after a newer input of their user and were placed by a refold.
    public var lateInputs = 0
    /// Inputs folded by refolds (the old history and the corrected one).
    public var refoldedInputs = 0
    public var filteredJumps = 0
    public var tooInaccurate = 0
    /// Update/complete/cancel commands naming no active trip. Not dead letters: they stay in the
    /// replay history and take effect if the trip's late `start` arrives.
    public var unmatchedCommands = 0
    public var rejected: [RejectionReason: Int] = [:]
    public var eventsByType = [Int](repeating: 0, count: EventType.allCases.count)
    /// Users moved out of memory while idle beyond the horizon, and users brought back.
    public var usersEvicted = 0
    public var usersReturned = 0
    public var corrected = 0
    public var retracted = 0

    public init() {}

    public var events: Int { eventsByType.reduce(0, +) }

    /// Counts an event from its type and revision (not the event: passing one on copies it).
    public mutating func count(type: EventType, revision: EventRevision) {
        eventsByType[Int(type.rawValue)] += 1
        switch revision {
        case .original: break
        case .corrected: corrected += 1
        case .retracted: retracted += 1
        }
    }
}
