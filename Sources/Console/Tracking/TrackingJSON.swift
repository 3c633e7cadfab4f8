/// The tracking page's data: one trip, and nothing that names its user or any other user or trip.
///
/// `{trip, status, mode, eta, etaLow, etaHigh, meters, delayed, late, scheduled, started, arrivedAt, arrived,
/// ended, destination: {description, point, circle|polygon}, position: [lon, lat, t] | null, track: [[lon, lat]]}`.
/// After the trip ended there is no position; the track stops at its end.
enum TrackingJSON {
    static func render(_ trip: TripView, destination: GeofenceView?) -> [UInt8] {
        var json = JSONText(capacity: trip.track.count * 24 + 512)
        json.raw("{\"trip\":")
        json.string(trip.key.trip)
        json.raw(",\"status\":")
        json.string(trip.status)
        json.raw(",\"mode\":")
        json.optionalString(trip.mode)
        json.raw(",\"eta\":")
        json.optionalNumber(trip.isActive ? trip.etaMinutes : nil, decimals: 1)
        json.raw(",\"etaLow\":")
        json.optionalNumber(trip.isActive ? trip.etaLowMinutes : nil, decimals: 1)
        json.raw(",\"etaHigh\":")
        json.optionalNumber(trip.isActive ? trip.etaHighMinutes : nil, decimals: 1)
        json.raw(",\"meters\":")
        json.optionalNumber(trip.isActive ? trip.etaMeters : nil, decimals: 0)
        json.raw(",\"delayed\":")
        json.bool(trip.delayed)
        json.raw(",\"late\":")
        json.int(Int64(trip.minutesLate))
        json.raw(",\"scheduled\":")
        json.optionalInt(trip.scheduledArrivalAt)
        json.raw(",\"started\":")
        json.optionalInt(trip.startedAt)
        json.raw(",\"arrivedAt\":")
        json.optionalInt(trip.arrivedAt)
        json.raw(",\"arrived\":")
        json.bool(trip.arrivedAt != nil || trip.status == "arrived" || trip.status == "completed")
        json.raw(",\"ended\":")
        json.bool(!trip.isActive)
        json.raw(",\"destination\":{\"description\":")
        json.optionalString(destination?.description)
        json.raw(",\"point\":")
        if let point = trip.destination {
            json.raw("[")
            json.number(point.longitude)
            json.raw(",")
            json.number(point.latitude)
            json.raw("]")
        } else {
            json.raw("null")
        }
        if let destination {
            json.raw(",\"shape\":")
            FleetJSON.write(GeofenceView(key: "", tag: destination.tag, externalId: destination.externalId,
                                         description: nil, shape: destination.shape), &json)
        }
        json.raw("},\"position\":")
        if trip.isActive, let last = trip.track.last {
            json.raw("[")
            json.number(last.longitude)
            json.raw(",")
            json.number(last.latitude)
            json.raw(",")
            json.int(last.time)
            json.raw("]")
        } else {
            json.raw("null")
        }
        json.raw(",\"track\":[")
        for (index, point) in trip.track.enumerated() {
            if index > 0 { json.raw(",") }
            json.raw("[")
            json.number(point.longitude)
            json.raw(",")
            json.number(point.latitude)
            json.raw("]")
        }
        json.raw("]}")
        return json.bytes
    }
}
