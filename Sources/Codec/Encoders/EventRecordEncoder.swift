import Domain

/// Encodes events and ETA records: the bytes of `EventEncoder` and `EtaEncoder`, for processing loops
/// that keep one encoder.
///
/// It holds no state. It once cached the JSON of trip plans and geofences by identity; that was
/// slower than writing the few short fields again (each lookup missed the CPU cache), and is gone.
public struct EventRecordEncoder: Sendable {
    public init() {}

    /// Kept for source compatibility: the capacities are ignored (there is no cache any more).
    @available(*, deprecated, message: "EventRecordEncoder has no cache: use init()")
    public init(planCapacity: Int, geofenceCapacity: Int) {}

    /// Appends one event (no newline) to `buffer`: the bytes of `EventEncoder.encode`.
    @inline(__always)
    public mutating func encodeEvent(_ event: Event, actualCreatedAt: UnixMillis, into buffer: inout [UInt8]) {
        EventEncoder.encode(event, actualCreatedAt: actualCreatedAt, into: &buffer)
    }

    /// Appends the event's ETA record (no newline): the bytes of `EtaEncoder.encode`. Returns false and
    /// appends nothing if the event has no trip.
    @discardableResult
    @inline(__always)
    public mutating func encodeEta(_ event: Event, actualCreatedAt: UnixMillis, into buffer: inout [UInt8]) -> Bool {
        EtaEncoder.encode(event, actualCreatedAt: actualCreatedAt, into: &buffer)
    }

    /// Kept for source compatibility: there is nothing to forget.
    @available(*, deprecated, message: "EventRecordEncoder has no cache")
    public mutating func removeCachedFragments() {}
}
