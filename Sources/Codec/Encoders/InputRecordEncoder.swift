import Domain

/// Writes fixes, trip commands and geofences as devices, dispatch apps and admin tools publish them
/// (`schemas/fix.schema.json`, `trip-command.schema.json`, `geofence.schema.json`).
public enum InputRecordEncoder {
    public static func encode(_ fix: Fix, into buffer: inout [UInt8]) {
        var w = JSONWriter(taking: &buffer)
        w.raw("{\"userId\":")
        w.string(fix.userId)
        w.raw(",\"createdAt\":")
        w.timestamp(fix.createdAt)
        w.raw(",\"latitude\":")
        w.coordinateE7(fix.position.latitudeE7)
        w.raw(",\"longitude\":")
        w.coordinateE7(fix.position.longitudeE7)
        if !fix.accuracy.isNaN {
            w.raw(",\"accuracy\":")
            w.float(fix.accuracy)
        }
        if !fix.speed.isNaN {
            w.raw(",\"speed\":")
            w.float(fix.speed)
        }
        if let deviceId = fix.deviceId {
            w.raw(",\"deviceId\":")
            w.string(deviceId)
        }
        if fix.replayed { w.raw(",\"replayed\":true") }
        if let metadata = fix.metadata {
            w.raw(",\"metadata\":")
            w.raw(metadata)
        }
        w.byte(UInt8(ascii: "}"))
        w.finish(into: &buffer)
    }

    public static func encode(_ command: TripCommand, into buffer: inout [UInt8]) {
        var w = JSONWriter(taking: &buffer)
        w.raw("{\"type\":")
        w.string(command.kind.name)
        w.raw(",\"userId\":")
        w.string(command.userId)
        w.raw(",\"createdAt\":")
        w.timestamp(command.createdAt)
        w.raw(",\"trip\":{\"externalId\":")
        let trip = command.trip
        w.string(trip.externalId)
        if let tag = trip.destinationGeofenceTag {
            w.raw(",\"destinationGeofenceTag\":")
            w.string(tag)
        }
        if let externalId = trip.destinationGeofenceExternalId {
            w.raw(",\"destinationGeofenceExternalId\":")
            w.string(externalId)
        }
        if let c = trip.destinationCoordinates {
            w.raw(",\"destinationCoordinates\":[")
            w.coordinateE7(c.longitudeE7)
            w.byte(UInt8(ascii: ","))
            w.coordinateE7(c.latitudeE7)
            w.byte(UInt8(ascii: "]"))
        }
        if let radius = trip.destinationRadius {
            w.raw(",\"destinationRadius\":")
            w.double(radius)
        }
        if let mode = trip.mode {
            w.raw(",\"mode\":")
            w.string(mode.name)
        }
        if let threshold = trip.approachingThreshold {
            w.raw(",\"approachingThreshold\":")
            w.int(threshold)
        }
        if let scheduled = trip.scheduledArrivalAt {
            w.raw(",\"scheduledArrivalAt\":")
            w.timestamp(scheduled)
        }
        if let threshold = trip.delayThreshold {
            w.raw(",\"delayThreshold\":")
            w.int(threshold)
        }
        if let minutes = trip.expiresAfter {
            w.raw(",\"expiresAfter\":")
            w.int(minutes)
        }
        if let rule = trip.wrongDestination {
            w.raw(",\"wrongDestination\":")
            w.string(rule.name)
        }
        if let status = trip.status {
            w.raw(",\"status\":")
            w.tripStatus(status)
        }
        if let legs = trip.legs {
            w.raw(",\"legs\":")
            w.array(legs) { w, leg in w.tripLeg(leg, status: leg.status, arrivedAt: leg.arrivedAt) }
        }
        if let legId = trip.legId {
            w.raw(",\"legId\":")
            w.string(legId)
        }
        if let legIds = trip.legIds {
            w.raw(",\"legIds\":")
            w.array(legIds) { w, id in w.string(id) }
        }
        if let metadata = trip.metadata {
            w.raw(",\"metadata\":")
            w.raw(metadata)
        }
        w.raw("}}")
        w.finish(into: &buffer)
    }

    public static func encode(_ geofence: Geofence, into buffer: inout [UInt8]) {
        var w = JSONWriter(taking: &buffer)
        w.raw("{\"tag\":")
        w.string(geofence.tag)
        w.raw(",\"externalId\":")
        w.string(geofence.externalId)
        w.raw(",\"description\":")
        w.string(geofence.description)
        switch geofence.shape {
        case let .circle(center, radius):
            w.raw(",\"type\":\"circle\",\"coordinates\":[")
            w.coordinateE7(center.longitudeE7)
            w.byte(UInt8(ascii: ","))
            w.coordinateE7(center.latitudeE7)
            w.raw("],\"radius\":")
            w.double(radius)
        case let .polygon(rings):
            w.raw(",\"type\":\"polygon\",\"coordinates\":[")
            for (r, ring) in rings.enumerated() {
                if r > 0 { w.byte(UInt8(ascii: ",")) }
                w.byte(UInt8(ascii: "["))
                for (i, c) in ring.enumerated() {
                    if i > 0 { w.byte(UInt8(ascii: ",")) }
                    w.byte(UInt8(ascii: "["))
                    w.coordinateE7(c.longitudeE7)
                    w.byte(UInt8(ascii: ","))
                    w.coordinateE7(c.latitudeE7)
                    w.byte(UInt8(ascii: "]"))
                }
                w.byte(UInt8(ascii: "]"))
            }
            w.byte(UInt8(ascii: "]"))
        }
        if let metadata = geofence.metadata {
            w.raw(",\"metadata\":")
            w.raw(metadata)
        }
        w.raw(",\"enabled\":")
        w.bool(geofence.enabled)
        if let dwell = geofence.dwellThreshold {
            w.raw(",\"dwellThreshold\":")
            w.int(dwell)
        }
        if geofence.stopDetection { w.raw(",\"stopDetection\":true") }
        if let disableAfter = geofence.disableAfter {
            w.raw(",\"disableAfter\":")
            w.timestamp(disableAfter)
        }
        if let deleteAfter = geofence.deleteAfter {
            w.raw(",\"deleteAfter\":")
            w.timestamp(deleteAfter)
        }
        w.byte(UInt8(ascii: "}"))
        w.finish(into: &buffer)
    }
}
