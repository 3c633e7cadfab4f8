import Domain

/// Each geofence's JSON as events show it (`JSONWriter.geofence(_:)`: tag, externalId, description,
/// shape, metadata …), encoded once per geofence instead of once per event. In a geofence-dense
/// city most events carry a geofence, and escaping its strings and printing its radius cost more
/// than the rest of the event.
///
/// A `Geofence` is immutable and an upsert replaces the object, so a fragment stays valid while the
/// cache holds the very object it was made from (`===`); holding it also keeps the object's
/// identity from being reused. Bounded: emptied when it reaches `capacity` geofences or
/// `capacity` × 256 bytes of JSON (one cache per partition: an instance owning 12 partitions holds
/// at most 12 of them, about 60 MB at the default). A replay of files shares one made by
/// `init(encodingAll:)` among its partitions instead.
public struct GeofenceFragments: Sendable {
    /// Geofence id → entry.
    private var index = IntegerMap(capacity: 1024)
    /// Per entry: the geofence, held so that its identity cannot be reused while cached…
    private var owners: [Geofence] = []
    /// … its identity, compared without touching the object …
    private var identities: [ObjectIdentifier] = []
    /// … and where its JSON sits in `bytes`.
    private var ranges: [Range<Int>] = []
    private var bytes: [UInt8] = []
    public let capacity: Int
    /// Bytes of JSON kept before the cache is emptied.
    private var byteLimit: Int

    /// - Parameter capacity: geofences kept before the cache is emptied. Default: 20,000.
    public init(capacity: Int = 20_000) {
        self.capacity = max(capacity, 1)
        byteLimit = self.capacity &* 256
    }

    /// A cache that already holds every geofence of `table`, and room for all of them.
    ///
    /// A replay whose table never changes gives one to every partition: the copies share their
    /// storage (only reads follow), so each geofence is encoded once per run instead of once per
    /// partition, and its bytes are in memory once.
    public init(encodingAll table: GeofenceTable, capacity: Int = 20_000) {
        self.init(capacity: max(capacity, table.count))
        // The whole table's JSON, however long its geofences; later changes get as much again.
        byteLimit = .max
        index = IntegerMap(capacity: max(1024, table.count))
        for geofence in table.all { _ = entry(for: geofence) }
        byteLimit = max(self.capacity &* 256, bytes.count &* 2)
    }

    /// Bytes of geofence JSON held (tests: a shared cache that encodes nothing again does not grow).
    var heldBytes: Int { bytes.count }

    /// Where the bytes `JSONWriter.geofence(geofence)` writes are, encoded now if they are not yet:
    /// valid until the next call (which may empty the cache). Read them with `withJSON(of:)`.
    @inline(__always)
    public mutating func fragment(for geofence: Geofence) -> Range<Int> {
        ranges[entry(for: geofence)]
    }

    /// Starts loading the JSON of `event`'s geofence if it is held, without waiting: the events of
    /// one fix carry several geofences, whose JSON lies apart in a table of thousands, a miss each;
    /// asked for all of them first, the misses overlap. A hint: changes nothing, encodes nothing.
    /// Both `inout` only so that neither is copied (the cache's arrays and the event's geofence
    /// would be retained, and the geofence's count is a line the partitions' threads share).
    @inline(__always)
    public mutating func prefetchJSON(forGeofenceOf event: inout Event) {
        guard event.geofence != nil, let found = index[event.geofence!.id.rawValue],
            identities[Int(found)] == ObjectIdentifier(event.geofence!)
        else { return }
        let range = ranges[Int(found)]
        bytes.withUnsafeBufferPointer { bytes in
            CachePrefetch.read(UnsafeRawPointer(bytes.baseAddress! + range.lowerBound), bytes: range.count, maxLines: 8)
        }
    }

    /// Calls `body` with the bytes of `fragment` (from `fragment(for:)`), valid only during the call.
    @inline(__always)
    public func withJSON<R>(of fragment: Range<Int>, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[fragment])) }
    }

    private mutating func entry(for geofence: Geofence) -> Int {
        if let found = index[geofence.id.rawValue] {
            let entry = Int(found)
            if identities[entry] == ObjectIdentifier(geofence) { return entry }
            // Replaced by an upsert: encode the new object (the old bytes stay until the cache empties).
            owners[entry] = geofence
            identities[entry] = ObjectIdentifier(geofence)
            ranges[entry] = append(geofence)
            return entry
        }
        if owners.count >= capacity || bytes.count >= byteLimit {
            index = IntegerMap(capacity: 1024)
            owners.removeAll(keepingCapacity: true)
            identities.removeAll(keepingCapacity: true)
            ranges.removeAll(keepingCapacity: true)
            bytes.removeAll(keepingCapacity: true)
        }
        index[geofence.id.rawValue] = Int32(owners.count)
        owners.append(geofence)
        identities.append(ObjectIdentifier(geofence))
        ranges.append(append(geofence))
        return owners.count - 1
    }

    private mutating func append(_ geofence: Geofence) -> Range<Int> {
        let start = bytes.count
        JSONWriter.append(to: &bytes) { $0.geofence(geofence) }
        return start..<bytes.count
    }
}
