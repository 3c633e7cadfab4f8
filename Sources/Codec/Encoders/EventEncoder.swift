import Domain

/// Encodes a derived event as Radar's webhook event (`tripstream.events`, `schemas/event.schema.json`).
///
/// Field order is fixed and absent optionals are omitted (never `null`), so one event always
/// encodes to the same bytes (given the same `actualCreatedAt`):
/// `_id`, `type`, `createdAt`, `actualCreatedAt`, `live`, `replayed`, `late`, `corrected`|`retracted`, `location`,
/// `locationAccuracy`, `user` {`userId`, `deviceId`, `metadata`}, `geofence`, `duration`, `trip`.
/// Durations are minutes (two decimals at most), distances meters, times RFC 3339 UTC with ms.
/// `trip.destinationRadius` is written only for a destination given as coordinates.
///
/// Stateless. The record is sized up front and written in place into `buffer`'s spare capacity.
public enum EventEncoder {
    /// Appends one event (no newline) to `buffer`.
    public static func encode(_ event: Event, actualCreatedAt: UnixMillis, into buffer: inout [UInt8]) {
        var event = event
        JSONWriter.append(to: &buffer, reserving: JSONWriter.maxEventBytes(event)) { w in
            w.event(&event, actualCreatedAt: actualCreatedAt)
        }
    }

    /// As `encode(_:actualCreatedAt:into:)`, the geofence's JSON taken from `fragments` (the same
    /// bytes, encoded once per geofence).
    ///
    /// The event is taken `inout` only to be read in place (it is not changed): an `Event` passed by
    /// value out of an array's storage is copied first, a retain and a release of each reference it
    /// holds, for every event.
    public static func encode(inPlace event: inout Event, actualCreatedAt: UnixMillis,
                              fragments: inout GeofenceFragments, into buffer: inout [UInt8])
    {
        guard event.geofence != nil else {
            JSONWriter.append(to: &buffer, reserving: JSONWriter.maxEventBytes(event)) { w in
                w.event(&event, actualCreatedAt: actualCreatedAt)
            }
            return
        }
        // The geofence read in place: bound to a local it is retained and released per event (the
        // writer below may change `event`), and a table's geofences are shared by the partitions'
        // threads, so their reference counts are cache lines the cores take from one another.
        let fragment = fragments.fragment(for: event.geofence!)
        // The bound without the geofence's JSON taken here: read from `event` inside the closure
        // below (where it is captured), the event was copied first.
        let boundBesidesGeofence = JSONWriter.maxEventBytes(event, geofenceJSON: 0)
        fragments.withJSON(of: fragment) { json in
            JSONWriter.append(to: &buffer, reserving: boundBesidesGeofence &+ json.count) { w in
                w.event(&event, actualCreatedAt: actualCreatedAt, geofenceJSON: json)
            }
        }
    }

    /// The event as a `String` (tests, tools).
    public static func string(_ event: Event, actualCreatedAt: UnixMillis) -> String {
        var bytes: [UInt8] = []
        encode(event, actualCreatedAt: actualCreatedAt, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
