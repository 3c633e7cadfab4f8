/// A visit's or a trip's place among its own kind: the `n`th visit of one geofence, or the `n`th
/// start of one trip externalId, by one user on one UTC day. With the user, the event type and the
/// geofence or trip, it names an event (`_id`).
///
/// Why per geofence (or trip) and per day, not per user: an `_id` must not depend on anything an
/// unrelated late input can shift. A late offline buffer that adds a visit to store `g1` inserts
/// nothing among `g2`'s visits, so `g2`'s events keep their ids; a user-wide visit number would
/// have renamed every later visit of the day. The day keeps the counts bounded (only the current
/// day's are kept) while the ids stay unique forever.
public struct EventOrdinal: Sendable, Hashable {
    /// Days since 1970-01-01 (UTC) of the event that took the number.
    public var day: Int32
    /// 1 for the first of that day.
    public var count: UInt32

    public init(day: Int32, count: UInt32) {
        self.day = day
        self.count = count
    }

    /// The UTC day of an event time.
    @inlinable
    public static func day(of time: UnixMillis) -> Int32 {
        let millisPerDay: Int64 = 86_400_000
        let days = time >= 0 ? time / millisPerDay : (time - millisPerDay + 1) / millisPerDay
        return Int32(clamping: days)
    }

    /// Adds the ordinal to an `_id` hasher.
    @inlinable
    public func combine(into hasher: inout StableHasher) {
        hasher.combine(UInt64(UInt32(bitPattern: day)) << 32 | UInt64(count))
    }
}

/// The counts behind `EventOrdinal`s: per user, what each geofence and trip externalId has had today.
///
/// Bounded by what one day holds: a count of an older day is dropped when a newer day's is taken
/// (the day before is kept too, so an input that crosses midnight by a little still counts on).
/// A user folds in event-time order, so no count dropped is ever asked for again.
/// - Complexity: `next` is linear in the kept counts (a handful: geofences entered and trips
///   started in two days).
public struct EventOrdinals: Sendable, Equatable {
    /// What is counted: a geofence's visits or a trip externalId's starts, as one 64-bit key.
    public struct Key: Sendable, Hashable {
        public var rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }

        public static func visits(of geofence: GeofenceID) -> Key { Key(rawValue: geofence.rawValue) }

        /// Hashed apart from geofence ids (which hash tag "/" externalId), so the two never share a count.
        public static func starts(ofTrip externalId: String) -> Key {
            var hasher = StableHasher()
            hasher.combine("trip")
            hasher.combine(externalId)
            return Key(rawValue: hasher.value)
        }
    }

    public struct Count: Sendable, Equatable {
        public var key: Key
        public var day: Int32
        public var count: UInt32

        public init(key: Key, day: Int32, count: UInt32) {
            self.key = key
            self.day = day
            self.count = count
        }
    }

    /// Today's and yesterday's counts, in the order they were first taken.
    public private(set) var counts: [Count] = []

    public init() {}

    /// Restores persisted counts.
    public init(counts: [Count]) { self.counts = counts }

    /// Takes the next ordinal of `key` for an event at `time`.
    public mutating func next(_ key: Key, at time: UnixMillis) -> EventOrdinal {
        let day = EventOrdinal.day(of: time)
        if let oldest = counts.first, oldest.day < day - 1 { counts.removeAll { $0.day < day - 1 } }
        if let index = counts.firstIndex(where: { $0.key == key && $0.day == day }) {
            counts[index].count &+= 1
            return EventOrdinal(day: day, count: counts[index].count)
        }
        counts.append(Count(key: key, day: day, count: 1))
        return EventOrdinal(day: day, count: 1)
    }
}
