import Domain

/// Encodes the lean ETA record of `tripstream.eta` (`schemas/eta-update.schema.json`) from a
/// trip event (normally `user.updated_trip`), for notification services that need no more:
/// `_id`, `userId`, `externalId`, `status`, `createdAt`, `actualCreatedAt`, `live`,
/// `corrected`|`retracted`, `location`, `eta` {`duration` (min), `distance` (m)},
/// `destinationGeofenceTag`, `destinationGeofenceExternalId`, `scheduledArrivalAt`, `delayed`.
///
/// Stateless; `EventRecordEncoder` writes the same bytes faster on hot paths.
public enum EtaEncoder {
    /// Appends the record (no newline). Returns false and appends nothing if the event has no trip.
    @discardableResult
    public static func encode(_ event: Event, actualCreatedAt: UnixMillis, into buffer: inout [UInt8]) -> Bool {
        guard let trip = event.trip else { return false }
        var cache = EncoderCache.disabled
        JSONWriter.append(to: &buffer) { w in
            w.etaRecord(event, trip: trip, actualCreatedAt: actualCreatedAt, cache: &cache)
        }
        return true
    }
}
