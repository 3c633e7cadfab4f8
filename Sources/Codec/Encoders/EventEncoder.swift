import Domain

/// Encodes a derived event as Radar's webhook event (`tripstream.events`, `schemas/event.schema.json`).
///
/// Field order is fixed and absent optionals are omitted (never `null`), so one event always
/// encodes to the same bytes (given the same `actualCreatedAt`):
/// `_id`, `type`, `createdAt`, `actualCreatedAt`, `live`, `corrected`|`retracted`, `location`,
/// `locationAccuracy`, `user` {`userId`, `deviceId`, `metadata`}, `geofence`, `duration`, `trip`.
/// Durations are minutes (two decimals at most), distances meters, times RFC 3339 UTC with ms.
public enum EventEncoder {
    /// Appends one event (no newline) to `buffer`.
    public static func encode(_ event: Event, actualCreatedAt: UnixMillis, into buffer: inout [UInt8]) {
        JSONWriter.append(to: &buffer) { w in
            w.raw("{\"_id\":")
            w.eventID(event.id)
            w.raw(",\"type\":")
            w.string(event.type.name)
            w.raw(",\"createdAt\":")
            w.timestamp(event.createdAt)
            w.raw(",\"actualCreatedAt\":")
            w.timestamp(actualCreatedAt)
            w.raw(event.live ? ",\"live\":true" : ",\"live\":false")
            w.revisionFlag(event.revision)
            if let location = event.location {
                w.raw(",\"location\":")
                w.point(location)
            }
            if event.locationAccuracy.isFinite {
                w.raw(",\"locationAccuracy\":")
                w.float(event.locationAccuracy)
            }
            w.raw(",\"user\":{\"userId\":")
            w.string(event.userId)
            if let deviceId = event.deviceId {
                w.raw(",\"deviceId\":")
                w.string(deviceId)
            }
            if let metadata = event.userMetadata {
                w.raw(",\"metadata\":")
                w.raw(metadata)
            }
            w.byte(UInt8(ascii: "}"))
            if let geofence = event.geofence {
                w.raw(",\"geofence\":")
                w.geofence(geofence)
            }
            if let duration = event.durationSeconds {
                w.raw(",\"duration\":")
                w.minutes(seconds: Int64(duration))
            }
            if let trip = event.trip {
                w.raw(",\"trip\":")
                w.trip(trip)
            }
            w.byte(UInt8(ascii: "}"))
        }
    }

    /// The event as a `String` (tests, tools).
    public static func string(_ event: Event, actualCreatedAt: UnixMillis) -> String {
        var bytes: [UInt8] = []
        encode(event, actualCreatedAt: actualCreatedAt, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
