import Domain

/// Encodes events and ETA records exactly as `EventEncoder` and `EtaEncoder` do, reusing the JSON
/// of the parts that belong to immutable shared objects: a trip's plan (external id, mode,
/// destination, threshold, schedule, metadata) and a geofence, cached by object identity.
///
/// One per processing loop (not shared between threads). Memory is bounded by the capacities: each
/// cached entry keeps its plan or geofence alive, with fragments of at most
/// `FragmentCache.maxFragmentBytes` bytes.
public struct EventRecordEncoder: Sendable {
    var cache: EncoderCache

    /// - Parameters:
    ///   - planCapacity: trip plans cached (about the trips active at once). Default: 65,536.
    ///   - geofenceCapacity: geofences cached. Default: 16,384.
    ///   Zero disables that cache.
    public init(planCapacity: Int = 1 << 16, geofenceCapacity: Int = 1 << 14) {
        cache = EncoderCache(planCapacity: planCapacity, geofenceCapacity: geofenceCapacity)
    }

    /// Appends one event (no newline) to `buffer`: the bytes of `EventEncoder.encode`.
    public mutating func encodeEvent(_ event: Event, actualCreatedAt: UnixMillis, into buffer: inout [UInt8]) {
        JSONWriter.append(to: &buffer) { w in w.event(event, actualCreatedAt: actualCreatedAt, cache: &cache) }
    }

    /// Appends the event's ETA record (no newline): the bytes of `EtaEncoder.encode`. Returns false and
    /// appends nothing if the event has no trip.
    @discardableResult
    public mutating func encodeEta(_ event: Event, actualCreatedAt: UnixMillis, into buffer: inout [UInt8]) -> Bool {
        guard let trip = event.trip else { return false }
        JSONWriter.append(to: &buffer) { w in
            w.etaRecord(event, trip: trip, actualCreatedAt: actualCreatedAt, cache: &cache)
        }
        return true
    }

    /// Forgets every cached fragment and the objects they keep alive.
    public mutating func removeCachedFragments() {
        cache.plans.removeAll()
        cache.geofences.removeAll()
    }
}
