import Codec
import Domain
import LZ4IO

/// What changed between two runs' events (`tripstream diff`): each run's events upserted by `_id`
/// (the latest publication wins, a retraction removes), then matched by `_id`: added, removed,
/// changed. Processing time and how an event was delivered (replayed, late, corrected) are not content.
/// A changed event names the fields that changed; the differences come most changed first, and those
/// that are only a trip's ETA moving come last.
public struct EventDiff: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case added, removed, changed
    }

    /// Counts by kind, for one group of events.
    public struct Counts: Sendable, Equatable {
        public var added = 0
        public var removed = 0
        public var changed = 0
        public var total: Int { added + removed + changed }

        public init(added: Int = 0, removed: Int = 0, changed: Int = 0) {
            self.added = added
            self.removed = removed
            self.changed = changed
        }

        mutating func count(_ kind: Kind) {
            switch kind {
            case .added: added += 1
            case .removed: removed += 1
            case .changed: changed += 1
            }
        }
    }

    /// One difference, with the event as each run has it (JSON, nil where absent).
    public struct Change: Sendable {
        public var kind: Kind
        public var id: EventID
        public var type: EventType
        public var userId: String
        /// `tag/externalId` of the event's geofence, if it has one.
        public var geofence: String?
        public var before: String?
        public var after: String?
        /// The fields that differ (a changed event only).
        public var fields: [FieldChange] = []
        /// How much differs: the fields that changed, or every field of an event one run lacks.
        public var size = 0

        /// Only the trip's ETA differs: the change that says least.
        public var isETAOnly: Bool { kind == .changed && !fields.isEmpty && fields.allSatisfy(\.isETA) }

        /// How far `trip.eta.duration` moved, in minutes (0 when it did not, or is not a number).
        public var etaDurationMove: Double {
            guard let field = fields.first(where: { $0.path == "trip.eta.duration" }),
                  let before = field.before.flatMap(Double.init), let after = field.after.flatMap(Double.init)
            else { return 0 }
            return abs(after - before)
        }

        /// Most changed first; ETA-only changes last, the largest ETA moves first among them; then by `_id`.
        static func rankedBefore(_ a: Change, _ b: Change) -> Bool {
            if a.isETAOnly != b.isETAOnly { return !a.isETAOnly }
            if a.isETAOnly, a.etaDurationMove != b.etaDurationMove { return a.etaDurationMove > b.etaDurationMove }
            if a.size != b.size { return a.size > b.size }
            return a.id < b.id
        }
    }

    /// Events in each run (after upserting).
    public var eventsBefore = 0
    public var eventsAfter = 0
    public var counts = Counts()
    public var byType: [EventType: Counts] = [:]
    public var byGeofence: [String: Counts] = [:]
    /// Changed events per field that changed (`trip.eta.duration`: 1,204).
    public var byField: [String: Int] = [:]
    /// Changed events that differ only in their trip's ETA.
    public var etaOnlyChanges = 0
    /// Every difference, most changed first (``Change/rankedBefore(_:_:)``).
    public var changes: [Change] = []

    public var isEmpty: Bool { counts.total == 0 }

    /// Compares two runs' events.
    public init(before: [Event], after: [Event]) {
        let old = Self.upserted(before)
        let new = Self.upserted(after)
        eventsBefore = old.count
        eventsAfter = new.count
        for id in Set(old.keys).union(new.keys).sorted() {
            let was = old[id], now = new[id]
            let kind: Kind
            switch (was, now) {
            case (nil, _?): kind = .added
            case (_?, nil): kind = .removed
            case let (was?, now?):
                guard was.content != now.content else { continue }
                kind = .changed
            case (nil, nil): continue
            }
            let event = (now ?? was)!.event
            let geofence = event.geofence.map { "\($0.tag)/\($0.externalId)" }
            counts.count(kind)
            byType[event.type, default: Counts()].count(kind)
            if let geofence { byGeofence[geofence, default: Counts()].count(kind) }
            var change = Change(kind: kind, id: id, type: event.type, userId: event.userId, geofence: geofence,
                                before: was?.content, after: now?.content)
            if let was, let now {
                change.fields = FieldChange.between(was.content, now.content)
                change.size = change.fields.count
                for field in change.fields { byField[field.path, default: 0] += 1 }
                if change.isETAOnly { etaOnlyChanges += 1 }
            } else {
                change.size = JSONLeaves.of((now ?? was)!.content).count
            }
            changes.append(change)
        }
        changes.sort(by: Change.rankedBefore)
    }

    /// Reads a run's events file (NDJSON, plain or LZ4); an unreadable line is an error naming it.
    public static func readEvents(path: String) throws -> [Event] {
        var events: [Event] = []
        let reader = try LineReader(path: path)
        try reader.forEachLine(onLineTooLong: { line in
            throw EventFileError.lineTooLong(path: path, line: line.lineNumber, bytes: line.byteCount)
        }) { line in
            do {
                events.append(try EventDecoder.decode(line.bytes).event)
            } catch {
                throw EventFileError.notAnEvent(path: path, line: line.number, reason: "\(error)")
            }
        }
        return events
    }

    private struct Upserted {
        var event: Event
        /// The event's JSON without processing time or delivery flags.
        var content: String
    }

    private static func upserted(_ events: [Event]) -> [EventID: Upserted] {
        var byID: [EventID: Upserted] = [:]
        for event in events {
            if event.revision == .retracted {
                byID[event.id] = nil
                continue
            }
            byID[event.id] = Upserted(event: event, content: comparable(event))
        }
        return byID
    }

    /// An event as content: delivery (replayed, late, corrected) and processing time left out.
    public static func comparable(_ event: Event) -> String {
        var copy = event
        copy.replayed = false
        copy.late = false
        copy.revision = .original
        return withoutProcessingTime(EventEncoder.string(copy, actualCreatedAt: 0))
    }

    /// The encoder's `"actualCreatedAt"` of processing time 0 left out: not content, and a 1970 date in what
    /// `tripstream diff` prints would only mislead.
    static func withoutProcessingTime(_ json: String) -> String {
        let field = Array(#","actualCreatedAt":"1970-01-01T00:00:00.000Z""#.utf8)
        let bytes = Array(json.utf8)
        guard let start = (0...max(bytes.count - field.count, 0)).first(where: { bytes[$0...].starts(with: field) })
        else { return json }
        return String(decoding: bytes[..<start] + bytes[(start + field.count)...], as: UTF8.self)
    }
}
