import Domain

/// Encodes the lean ETA record of `tripstream.eta` (`schemas/eta-update.schema.json`) from a
/// trip event (normally `user.updated_trip`), for notification services that need no more:
/// `_id`, `userId`, `externalId`, `status`, `createdAt`, `actualCreatedAt`, `live`, `replayed`, `late`,
/// `corrected`|`retracted`, `location`, `eta` {`duration` (min), `distance` (m)},
/// `destinationGeofenceTag`, `destinationGeofenceExternalId`, `scheduledArrivalAt`, `delayed`.
///
/// Stateless. The record is sized up front and written in place into `buffer`'s spare capacity.
public enum EtaEncoder {
    /// Appends the record (no newline). Returns false and appends nothing if the event has no trip.
    @discardableResult
    public static func encode(_ event: Event, actualCreatedAt: UnixMillis, into buffer: inout [UInt8]) -> Bool {
        var event = event
        return encode(inPlace: &event, actualCreatedAt: actualCreatedAt, into: &buffer)
    }

    /// As `encode(_:actualCreatedAt:into:)`, the event read in place: taken `inout` only for that (it is
    /// not changed), as `EventEncoder.encode(inPlace:…)`; passed by value out of an array's storage an
    /// `Event` is copied first, a retain and a release of each reference it holds.
    @discardableResult
    public static func encode(inPlace event: inout Event, actualCreatedAt: UnixMillis, into buffer: inout [UInt8])
        -> Bool
    {
        guard let plan = event.trip?.plan else { return false }
        JSONWriter.append(to: &buffer, reserving: JSONWriter.maxEtaBytes(event, plan: plan)) { w in
            w.etaRecord(&event, actualCreatedAt: actualCreatedAt)
        }
        return true
    }
}
