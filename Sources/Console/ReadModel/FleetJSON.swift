/// The console's JSON shapes. Drivers are arrays, not objects: a snapshot of 100,000 is about 5 MB.
///
/// - driver: `[id, longitude, latitude, lastFixAt (s), state]`, state 0 idle, 1 on a trip, 2 on a late trip
///   (staleness is the page's call: it compares lastFixAt with `streamTime`).
/// - trip: `{user, trip, status, mode, tag, dest, eta, etaLow, etaHigh, meters, delayed, late, started, scheduled}`.
/// - event: `{seq, id, type, at, user, lon, lat, geofence, trip}`.
/// - geofence: `{key, tag, id, description, circle: [lon, lat, radius]}` or `{…, polygon: rings}`.
enum FleetJSON {
    static func snapshot(_ model: FleetModel, now: Int64) -> [UInt8] {
        var json = JSONText(capacity: model.drivers.count * 48 + 4096)
        json.raw("{\"now\":")
        json.int(now)
        json.raw(",\"sequence\":")
        json.int(model.deltaSequence)
        json.raw(",\"streamTime\":")
        json.int(model.streamTime)
        json.raw(",\"newestUserRecordAt\":")
        json.int(model.newestUserRecordAt)
        json.raw(",\"drivers\":[")
        var first = true
        for driver in model.drivers.values {
            if !first { json.raw(",") }
            first = false
            write(driver, &json)
        }
        json.raw("],\"trips\":[")
        first = true
        for trip in model.trips.values where trip.isActive {
            if !first { json.raw(",") }
            first = false
            write(trip, &json)
        }
        json.raw("],\"geofences\":[")
        first = true
        for fence in model.geofences.values {
            if !first { json.raw(",") }
            first = false
            write(fence, &json)
        }
        json.raw("],\"events\":[")
        first = true
        for event in model.feed.suffix(FleetModel.feedLength) {
            if !first { json.raw(",") }
            first = false
            write(event, &json)
        }
        json.raw("]}")
        return json.bytes
    }

    static func delta(_ changes: FleetChanges) -> [UInt8] {
        var json = JSONText(capacity: changes.drivers.count * 48 + 1024)
        json.raw("{\"sequence\":")
        json.int(changes.sequence)
        json.raw(",\"streamTime\":")
        json.int(changes.streamTime)
        json.raw(",\"newestUserRecordAt\":")
        json.int(changes.newestUserRecordAt)
        json.raw(",\"drivers\":[")
        for (index, driver) in changes.drivers.enumerated() {
            if index > 0 { json.raw(",") }
            write(driver, &json)
        }
        json.raw("],\"removedDrivers\":[")
        for (index, id) in changes.removedDrivers.enumerated() {
            if index > 0 { json.raw(",") }
            json.string(id)
        }
        json.raw("],\"trips\":[")
        for (index, trip) in changes.trips.enumerated() {
            if index > 0 { json.raw(",") }
            write(trip, &json)
        }
        json.raw("],\"geofences\":[")
        for (index, fence) in changes.geofences.enumerated() {
            if index > 0 { json.raw(",") }
            write(fence, &json)
        }
        json.raw("],\"removedGeofences\":[")
        for (index, key) in changes.removedGeofences.enumerated() {
            if index > 0 { json.raw(",") }
            json.string(key)
        }
        json.raw("],\"events\":[")
        for (index, event) in changes.events.suffix(100).enumerated() {
            if index > 0 { json.raw(",") }
            write(event, &json)
        }
        json.raw("],\"eventCount\":")
        json.int(Int64(changes.eventCount))
        json.raw("}")
        return json.bytes
    }

    static func write(_ driver: Driver, _ json: inout JSONText) {
        json.raw("[")
        json.string(driver.id)
        json.raw(",")
        json.number(driver.longitude)
        json.raw(",")
        json.number(driver.latitude)
        json.raw(",")
        json.int(driver.lastFixAt / 1000)
        json.raw(driver.activeTrip == nil ? ",0]" : driver.delayed ? ",2]" : ",1]")
    }

    static func write(_ trip: TripView, _ json: inout JSONText) {
        json.raw("{\"user\":")
        json.string(trip.key.user)
        json.raw(",\"trip\":")
        json.string(trip.key.trip)
        json.raw(",\"status\":")
        json.string(trip.status)
        json.raw(",\"mode\":")
        json.optionalString(trip.mode)
        json.raw(",\"tag\":")
        json.optionalString(trip.destinationTag)
        json.raw(",\"dest\":")
        json.optionalString(trip.destinationExternalId)
        json.raw(",\"eta\":")
        json.optionalNumber(trip.etaMinutes, decimals: 1)
        json.raw(",\"etaLow\":")
        json.optionalNumber(trip.etaLowMinutes, decimals: 1)
        json.raw(",\"etaHigh\":")
        json.optionalNumber(trip.etaHighMinutes, decimals: 1)
        json.raw(",\"meters\":")
        json.optionalNumber(trip.etaMeters, decimals: 0)
        json.raw(",\"delayed\":")
        json.bool(trip.delayed)
        json.raw(",\"late\":")
        json.int(Int64(trip.minutesLate))
        json.raw(",\"started\":")
        json.optionalInt(trip.startedAt)
        json.raw(",\"scheduled\":")
        json.optionalInt(trip.scheduledArrivalAt)
        json.raw(",\"active\":")
        json.bool(trip.isActive)
        json.raw("}")
    }

    static func write(_ event: FeedEvent, _ json: inout JSONText) {
        json.raw("{\"seq\":")
        json.int(event.sequence)
        json.raw(",\"id\":")
        json.string(event.id)
        json.raw(",\"type\":")
        json.string(event.type)
        json.raw(",\"at\":")
        json.int(event.createdAt)
        json.raw(",\"user\":")
        json.string(event.user)
        json.raw(",\"lon\":")
        json.optionalNumber(event.longitude)
        json.raw(",\"lat\":")
        json.optionalNumber(event.latitude)
        json.raw(",\"geofence\":")
        json.optionalString(event.geofence)
        json.raw(",\"trip\":")
        json.optionalString(event.trip)
        json.raw("}")
    }

    static func write(_ fence: GeofenceView, _ json: inout JSONText) {
        json.raw("{\"key\":")
        json.string(fence.key)
        json.raw(",\"tag\":")
        json.string(fence.tag)
        json.raw(",\"id\":")
        json.string(fence.externalId)
        json.raw(",\"description\":")
        json.optionalString(fence.description)
        switch fence.shape {
        case .circle(let longitude, let latitude, let radius):
            json.raw(",\"circle\":[")
            json.number(longitude)
            json.raw(",")
            json.number(latitude)
            json.raw(",")
            json.number(radius, decimals: 1)
            json.raw("]}")
        case .polygon(let rings):
            json.raw(",\"polygon\":[")
            for (r, ring) in rings.enumerated() {
                if r > 0 { json.raw(",") }
                json.raw("[")
                for (p, point) in ring.enumerated() {
                    if p > 0 { json.raw(",") }
                    json.raw("[")
                    json.number(point[0])
                    json.raw(",")
                    json.number(point[1])
                    json.raw("]")
                }
                json.raw("]")
            }
            json.raw("]}")
        }
    }
}
