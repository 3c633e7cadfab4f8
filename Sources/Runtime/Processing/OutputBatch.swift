/// Everything one batch of inputs produced, per output topic.
public struct OutputBatch: Sendable {
    public var events: RecordBuffer
    public var eta: RecordBuffer
    public var deadLetters: RecordBuffer
    public var users: RecordBuffer
    /// One record per finished trip (`tripstream.trip-summaries`).
    public var tripSummaries: RecordBuffer

    public init(newlineSeparated: Bool) {
        events = RecordBuffer(newlineSeparated: newlineSeparated)
        eta = RecordBuffer(newlineSeparated: newlineSeparated)
        deadLetters = RecordBuffer(newlineSeparated: newlineSeparated)
        users = RecordBuffer(newlineSeparated: newlineSeparated)
        tripSummaries = RecordBuffer(newlineSeparated: newlineSeparated)
    }

    public var recordCount: Int { events.count + eta.count + deadLetters.count + users.count + tripSummaries.count }

    /// Bytes held, for the bound on in-flight outputs.
    public var byteCount: Int { events.byteCount + eta.byteCount + deadLetters.byteCount + users.byteCount
        + tripSummaries.byteCount }

    /// Appends every record of `other` after this batch's, topic by topic.
    public mutating func append(contentsOf other: OutputBatch) {
        events.append(contentsOf: other.events)
        eta.append(contentsOf: other.eta)
        deadLetters.append(contentsOf: other.deadLetters)
        users.append(contentsOf: other.users)
        tripSummaries.append(contentsOf: other.tripSummaries)
    }

    /// A place in a batch: the records of each topic before it.
    public struct Mark: Sendable, Equatable {
        public var events = 0, eta = 0, deadLetters = 0, users = 0, tripSummaries = 0
    }

    /// The end of what the batch holds now.
    public var mark: Mark {
        Mark(events: events.count, eta: eta.count, deadLetters: deadLetters.count, users: users.count,
             tripSummaries: tripSummaries.count)
    }

    public mutating func removeAll() {
        events.removeAll()
        eta.removeAll()
        deadLetters.removeAll()
        users.removeAll()
        tripSummaries.removeAll()
    }
}
