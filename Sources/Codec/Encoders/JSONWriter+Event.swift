import Domain

// MARK: - The event and ETA record layouts, shared by the stateless and the caching encoders

extension JSONWriter {
    /// One event (`EventEncoder`'s layout). Plan and geofence fragments come from `cache` when it is
    /// enabled; the bytes are the same either way.
    mutating func event(_ event: Event, actualCreatedAt: UnixMillis, cache: inout EncoderCache) {
        raw("{\"_id\":")
        eventID(event.id)
        eventType(event.type)
        raw(",\"createdAt\":")
        timestamp(event.createdAt)
        raw(",\"actualCreatedAt\":")
        timestamp(actualCreatedAt)
        raw(event.live ? ",\"live\":true" : ",\"live\":false")
        revisionFlag(event.revision)
        if let location = event.location {
            raw(",\"location\":")
            point(location)
        }
        if event.locationAccuracy.isFinite {
            raw(",\"locationAccuracy\":")
            float(event.locationAccuracy)
        }
        raw(",\"user\":{\"userId\":")
        string(event.userId)
        if let deviceId = event.deviceId {
            raw(",\"deviceId\":")
            string(deviceId)
        }
        if let metadata = event.userMetadata {
            raw(",\"metadata\":")
            raw(metadata)
        }
        byte(UInt8(ascii: "}"))
        if let geofence = event.geofence {
            raw(",\"geofence\":")
            if cache.geofences.isEnabled, let entry = cache.geofences.entry(for: geofence, build: EncoderCache.buildGeofence) {
                cache.geofences.write(entry, piece: 0, into: &self)
            } else {
                self.geofence(geofence)
            }
        }
        if let duration = event.durationSeconds {
            raw(",\"duration\":")
            minutes(seconds: Int64(duration))
        }
        if let trip = event.trip {
            raw(",\"trip\":")
            if cache.plans.isEnabled, let entry = cache.plans.entry(for: trip.plan, build: EncoderCache.buildPlan) {
                cache.plans.write(entry, piece: 0, into: &self)
                tripStatus(trip.status)
                cache.plans.write(entry, piece: 1, into: &self)
                tripProgress(trip)
            } else {
                self.trip(trip)
            }
        }
        byte(UInt8(ascii: "}"))
    }

    /// The ETA record of a trip event (`EtaEncoder`'s layout).
    mutating func etaRecord(
        _ event: Event, trip: TripSnapshot, actualCreatedAt: UnixMillis, cache: inout EncoderCache
    ) {
        let entry = cache.plans.isEnabled ? cache.plans.entry(for: trip.plan, build: EncoderCache.buildPlan) : nil
        raw("{\"_id\":")
        eventID(event.id)
        raw(",\"userId\":")
        string(event.userId)
        if let entry { cache.plans.write(entry, piece: 2, into: &self) } else { etaRecordOpening(trip.plan) }
        tripStatus(trip.status)
        raw(",\"createdAt\":")
        timestamp(event.createdAt)
        raw(",\"actualCreatedAt\":")
        timestamp(actualCreatedAt)
        raw(event.live ? ",\"live\":true" : ",\"live\":false")
        revisionFlag(event.revision)
        if let location = event.location {
            raw(",\"location\":")
            point(location)
        }
        if let eta = trip.eta { self.eta(eta) }
        if let entry { cache.plans.write(entry, piece: 3, into: &self) } else { etaRecordDestination(trip.plan) }
        raw(trip.delayMinutes != nil ? ",\"delayed\":true}" : ",\"delayed\":false}")
    }
}
