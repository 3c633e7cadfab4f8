import Domain

/// Encodes the lean ETA record of `tripstream.eta` (`schemas/eta-update.schema.json`) from a
/// trip event (normally `user.updated_trip`), for notification services that need no more:
/// `_id`, `userId`, `externalId`, `status`, `createdAt`, `actualCreatedAt`, `live`,
/// `corrected`|`retracted`, `location`, `eta` {`duration` (min), `distance` (m)},
/// `destinationGeofenceTag`, `destinationGeofenceExternalId`, `scheduledArrivalAt`, `delayed`.
public enum EtaEncoder {
    /// Appends the record (no newline). Returns false and appends nothing if the event has no trip.
    @discardableResult
    public static func encode(_ event: Event, actualCreatedAt: UnixMillis, into buffer: inout [UInt8]) -> Bool {
        guard let trip = event.trip else { return false }
        JSONWriter.append(to: &buffer) { w in
            w.raw("{\"_id\":")
            w.eventID(event.id)
            w.raw(",\"userId\":")
            w.string(event.userId)
            w.raw(",\"externalId\":")
            w.string(trip.plan.externalId)
            w.raw(",\"status\":")
            w.string(trip.status.name)
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
            if let eta = trip.eta { w.eta(eta) }
            if let tag = trip.plan.destinationGeofenceTag {
                w.raw(",\"destinationGeofenceTag\":")
                w.string(tag)
            }
            if let externalId = trip.plan.destinationGeofenceExternalId {
                w.raw(",\"destinationGeofenceExternalId\":")
                w.string(externalId)
            }
            if let scheduled = trip.plan.scheduledArrivalAt {
                w.raw(",\"scheduledArrivalAt\":")
                w.timestamp(scheduled)
            }
            w.raw(trip.delayMinutes != nil ? ",\"delayed\":true}" : ",\"delayed\":false}")
        }
        return true
    }
}
