import Domain

/// Encodes a trip-summary record (`tripstream.trip-summaries`, `schemas/trip-summary.schema.json`)
/// from a `user.stopped_trip` event: one record per finished trip, for payroll and analytics.
///
/// The record takes the stop event's `_id`, so when late data corrects or retracts the stop, the
/// summary is republished with `corrected`/`retracted` and upserts as the event does.
public enum TripSummaryEncoder {
    /// Appends the record (no newline). Returns false and appends nothing unless `event` is a stop
    /// with a summary.
    @discardableResult
    public static func encode(_ event: Event, actualCreatedAt: UnixMillis, into buffer: inout [UInt8]) -> Bool {
        guard event.type == .stoppedTrip, let trip = event.trip, let summary = trip.summary else { return false }
        let plan = trip.plan
        JSONWriter.append(to: &buffer) { w in
            w.raw("{\"_id\":")
            w.eventID(event.id)
            w.raw(",\"userId\":")
            w.string(event.userId)
            w.raw(",\"tripExternalId\":")
            w.string(plan.externalId)
            w.raw(",\"status\":")
            w.tripStatus(trip.status)
            w.raw(",\"mode\":")
            w.string(plan.mode.name)
            w.destinationGeofence(plan)
            w.raw(",\"startedAt\":")
            w.timestamp(trip.startedAt)
            w.raw(",\"stoppedAt\":")
            w.timestamp(event.createdAt)
            w.raw(",\"durationSeconds\":")
            w.int(summary.durationSeconds)
            w.raw(",\"distanceMeters\":")
            w.int(summary.distanceMeters)
            w.raw(",\"arrived\":")
            w.bool(trip.arrivedAt != nil)
            if let arrivedAt = trip.arrivedAt {
                w.raw(",\"arrivedAt\":")
                w.timestamp(arrivedAt)
            }
            if let onSite = summary.timeOnSiteSeconds {
                w.raw(",\"timeOnSiteSeconds\":")
                w.int(onSite)
            }
            if let scheduled = plan.scheduledArrivalAt {
                w.raw(",\"scheduledArrivalAt\":")
                w.timestamp(scheduled)
                if let arrivedAt = trip.arrivedAt {
                    // Positive: late. Whole seconds, as the other durations.
                    w.raw(",\"arrivalDelaySeconds\":")
                    w.int((arrivedAt - scheduled) / 1000)
                }
            }
            let errors = summary.etaErrors
            let graded: [(key: StaticString, seconds: Int32?)] = [
                (",\"etaError25Seconds\":", errors.quarter), (",\"etaError50Seconds\":", errors.half),
                (",\"etaError75Seconds\":", errors.threeQuarters),
            ]
            for (key, seconds) in graded {
                guard let seconds else { continue }
                w.raw(key)
                w.int(seconds)
            }
            w.etaInRange(errors)  // beside each error: whether the arrival fell within that ETA's range
            if let metadata = plan.metadata {
                w.raw(",\"metadata\":")
                w.raw(metadata)
            }
            w.raw(",\"actualCreatedAt\":")
            w.timestamp(actualCreatedAt)
            switch event.revision {
            case .original: break
            case .corrected: w.raw(",\"corrected\":true")
            case .retracted: w.raw(",\"retracted\":true")
            }
            w.raw("}")
        }
        return true
    }
}
