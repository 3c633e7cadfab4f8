import Domain

// MARK: - The event and ETA record layouts

extension JSONWriter {
    /// One event (`EventEncoder`'s layout).
    /// - Parameter geofenceJSON: what `geofence(event.geofence)` writes, if already encoded
    ///   (`GeofenceFragments`); nil: encode it here.
    /// - Note: `event` is `inout` only to be read in place, without a copy; it is not changed.
    mutating func event(_ event: inout Event, actualCreatedAt: UnixMillis, geofenceJSON: UnsafeRawBufferPointer? = nil) {
        raw("{\"_id\":")
        eventID(event.id)
        eventType(event.type)
        eventTimesAndLocation(event, actualCreatedAt: actualCreatedAt)
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
        // The metadata and the geofence read in place: bound to locals they are retained and released
        // per event, and a table's geofences are shared by the partitions' threads.
        if event.userMetadata != nil {
            raw(",\"metadata\":")
            raw(event.userMetadata!)
        }
        byte(UInt8(ascii: "}"))
        if event.geofence != nil {
            raw(",\"geofence\":")
            if let geofenceJSON { append(geofenceJSON) } else { self.geofence(event.geofence!) }
        }
        if let confidence = event.confidence {
            raw(",\"confidence\":")
            byte(UInt8(ascii: "0") + confidence.rawValue)
        }
        if let duration = event.durationSeconds {
            raw(",\"duration\":")
            minutes(seconds: Int64(duration))
        }
        if let reason = event.exitReason {
            raw(",\"exitReason\":")
            string(reason.name)
        }
        if event.trip != nil {
            raw(",\"trip\":")
            trip(&event.trip!)
        }
        byte(UInt8(ascii: "}"))
    }

    /// The ETA record of a trip event (`EtaEncoder`'s layout); `event.trip` must not be nil.
    /// - Note: `event` is `inout` only to be read in place, without a copy; it is not changed.
    mutating func etaRecord(_ event: inout Event, actualCreatedAt: UnixMillis) {
        raw("{\"_id\":")
        eventID(event.id)
        raw(",\"userId\":")
        string(event.userId)
        etaRecordOpening(event.trip!.plan)
        tripStatus(event.trip!.status)
        eventTimesAndLocation(event, actualCreatedAt: actualCreatedAt)
        if let eta = event.trip!.eta { self.eta(eta) }
        etaRecordDestination(event.trip!.plan)
        raw(event.trip!.delay?.delayed == true ? ",\"delayed\":true}" : ",\"delayed\":false}")
    }

    /// `,"createdAt":…,"actualCreatedAt":…,"live":true`, `replayed`/`late` when true, the revision flag
    /// and `,"location":…`: the run both layouts share.
    ///
    /// `live` is Radar's: a live key's event as opposed to a test key's. TripStream has no test keys, so
    /// it is always true; offline replay is `replayed` (Radar's name) and lateness `late` (ours).
    private mutating func eventTimesAndLocation(_ event: Event, actualCreatedAt: UnixMillis) {
        raw(",\"createdAt\":")
        timestamp(event.createdAt)
        raw(",\"actualCreatedAt\":")
        timestamp(actualCreatedAt)
        raw(",\"live\":true")
        if event.replayed { raw(",\"replayed\":true") }
        if event.late { raw(",\"late\":true") }
        revisionFlag(event.revision)
        if let location = event.location {
            raw(",\"location\":")
            point(location)
        }
    }
}

// MARK: - Sizes

extension JSONWriter {
    /// Bytes of everything but strings and raw JSON in an event: ids, keys, numbers, timestamps,
    /// points (well under 2 KiB: about 1.2 KiB with every optional field and long numbers).
    static let eventFixedBytes = 2048
    /// The same for an ETA record (about 0.5 KiB).
    static let etaFixedBytes = 1024

    /// The most an escaped string can take: every byte as `\u00XX`, plus the quotes.
    @inline(__always)
    static func maxBytes(_ s: String) -> Int { s.utf8.count &* 6 &+ 2 }

    @inline(__always)
    static func maxBytes(_ s: String?) -> Int { s.map(maxBytes) ?? 0 }

    @inline(__always)
    static func maxBytes(_ json: RawJSON?) -> Int { json?.bytes.count ?? 0 }

    /// An upper bound of `event(_:actualCreatedAt:)`'s output (`append(to:reserving:_:)`).
    static func maxEventBytes(_ event: Event) -> Int {
        var n = eventFixedBytes &+ maxBytes(event.userId) &+ maxBytes(event.deviceId) &+ maxBytes(event.userMetadata)
        if let g = event.geofence {
            n &+= maxBytes(g.tag) &+ maxBytes(g.externalId) &+ maxBytes(g.description) &+ maxBytes(g.metadata)
        }
        if let plan = event.trip?.plan { n &+= maxPlanBytes(plan) }
        return n
    }

    /// The same with the geofence already encoded, in `geofenceJSON` bytes.
    @inline(__always)
    static func maxEventBytes(_ event: Event, geofenceJSON: Int) -> Int {
        var n = eventFixedBytes &+ geofenceJSON &+ maxBytes(event.userId) &+ maxBytes(event.deviceId)
            &+ maxBytes(event.userMetadata)
        if let plan = event.trip?.plan { n &+= maxPlanBytes(plan) }
        return n
    }

    /// An upper bound of `etaRecord(_:actualCreatedAt:)`'s output for an event of trip plan `plan`.
    static func maxEtaBytes(_ event: Event, plan: TripPlan) -> Int {
        etaFixedBytes &+ maxBytes(event.userId) &+ maxBytes(plan.externalId)
            &+ maxBytes(plan.destinationGeofenceTag) &+ maxBytes(plan.destinationGeofenceExternalId)
    }

    /// From the plan's text extent, measured when it was made: every string at its most escaped, the
    /// current leg's id once more (`currentLegId`), and each leg's fixed part.
    @inline(__always)
    private static func maxPlanBytes(_ plan: TripPlan) -> Int {
        let text = plan.textExtent
        var n = text.stringBytes &* 6 &+ text.strings &* 2 &+ text.jsonBytes &+ plan.legs.count &* legFixedBytes
        if let current = plan.currentLegIndex { n &+= maxBytes(plan.legs[current].id) }
        return n
    }

    /// Bytes of a leg but its strings and metadata (about 220 with the longest numbers).
    static let legFixedBytes = 384
}
