import Domain

/// Encodes a derived event as Radar's webhook event (`tripstream.events`, `schemas/event.schema.json`).
///
/// Field order is fixed and absent optionals are omitted (never `null`), so one event always
/// encodes to the same bytes (given the same `actualCreatedAt`):
/// `_id`, `type`, `createdAt`, `actualCreatedAt`, `live`, `corrected`|`retracted`, `location`,
/// `locationAccuracy`, `user` {`userId`, `deviceId`, `metadata`}, `geofence`, `duration`, `trip`.
/// Durations are minutes (two decimals at most), distances meters, times RFC 3339 UTC with ms.
/// `trip.destinationRadius` is written only for a destination given as coordinates.
///
/// Stateless. The record is sized up front and written in place into `buffer`'s spare capacity.
public enum EventEncoder {
    /// Appends one event (no newline) to `buffer`.
    public static func encode(_ event: Event, actualCreatedAt: UnixMillis, into buffer: inout [UInt8]) {
        JSONWriter.append(to: &buffer, reserving: JSONWriter.maxEventBytes(event)) { w in
            w.event(event, actualCreatedAt: actualCreatedAt)
        }
    }

    /// The event as a `String` (tests, tools).
    public static func string(_ event: Event, actualCreatedAt: UnixMillis) -> String {
        var bytes: [UInt8] = []
        encode(event, actualCreatedAt: actualCreatedAt, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
