import Domain

/// Reads an event back from the JSON `EventEncoder` writes (for tests and the replay/compare
/// tools); also reads Radar's own webhook events, which lack some of our fields.
///
/// Round trip: every field `EventEncoder` writes comes back exactly (minutes with two decimals
/// map back to the same whole seconds). What the JSON cannot carry:
/// - `geofence`: a fresh `Geofence` (events compare geofences by identity, so compare fields).
///   A circle comes back from `geometryCenter`/`geometryRadius`. A polygon's rings are not in
///   events: it comes back as `.polygon(rings: [])` (an empty polygon: contains nothing, but
///   re-encodes to the same bytes). A geofence without `type`/`geometryCenter` (Radar's payloads)
///   comes back as a circle of radius 0 at (0, 0).
/// Defaults for fields Radar's payloads omit: `_id` all zero, `replayed` and `late` false,
/// `trip.mode` car, `trip.approachingThreshold` 0, `trip.startedAt` the event's `createdAt`. `trip.destinationRadius`
/// is written only for a destination given as coordinates; when absent it reads as 100 m (the
/// trip-command default), which a geofence destination carries but never uses. `live` (Radar's
/// live-or-test key, always true from TripStream) is read past.
public enum EventDecoder {
    /// Meters: the radius of a trip whose event carries none (a geofence destination, or Radar's payloads).
    public static let defaultDestinationRadius = 100.0

    public static func decode(_ bytes: [UInt8]) throws(DecodeError) -> DecodedEvent {
        try bytes.withUnsafeBytes { buffer in Result { () throws(DecodeError) in try decode(buffer) } }.get()
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> DecodedEvent {
        var reader = JSONReader(bytes)
        try reader.expectTopLevelObject()
        var issue: DecodeError?
        var id = EventID(high: 0, low: 0)
        var type: EventType?
        var createdAt: UnixMillis?
        var actualCreatedAt: UnixMillis?
        var replayed = false
        var late = false
        var revision = EventRevision.original
        var location: Coordinate?
        var accuracy: Float = .nan
        var userId: String?
        var deviceId: String?
        var userMetadata: RawJSON?
        var geofence: Geofence?
        var durationSeconds: Int32?
        var confidence: EventConfidence?
        var exitReason: ExitReason?
        var tripRange: Range<Int>?

        var cursor = try reader.beginObject()
        while let key = try reader.nextKey(&cursor) {
            if reader.matches(key, "_id") {
                if let parsed = try eventID(&reader, &issue) { id = parsed }
            } else if reader.matches(key, "type") {
                type = try reader.enumField("type", choices: "the user.* event types", nullable: false, &issue) {
                    bytes in EventType.allCases.first { $0.name.utf8.elementsEqual(bytes) }
                }
            } else if reader.matches(key, "createdAt") {
                createdAt = try reader.timestampField("createdAt", &issue)
            } else if reader.matches(key, "actualCreatedAt") {
                actualCreatedAt = try reader.timestampField("actualCreatedAt", &issue)
            } else if reader.matches(key, "replayed") {
                replayed = try reader.boolField("replayed", &issue) ?? false
            } else if reader.matches(key, "late") {
                late = try reader.boolField("late", &issue) ?? false
            } else if reader.matches(key, "corrected") {
                if try reader.boolField("corrected", &issue) == true { revision = .corrected }
            } else if reader.matches(key, "retracted") {
                if try reader.boolField("retracted", &issue) == true { revision = .retracted }
            } else if reader.matches(key, "location") {
                location = try reader.pointField("location", &issue)
            } else if reader.matches(key, "locationAccuracy") {
                accuracy =
                    try reader.doubleField(
                        "locationAccuracy", range: 0...Double.greatestFiniteMagnitude, rangeText: "[0, ∞)", &issue
                    ).map { Float($0) } ?? .nan
            } else if reader.matches(key, "user") {
                try user(&reader, &issue, &userId, &deviceId, &userMetadata)
            } else if reader.matches(key, "geofence") {
                geofence = try self.geofence(&reader, &issue)
            } else if reader.matches(key, "duration") {
                durationSeconds = try seconds("duration", &reader, &issue)
            } else if reader.matches(key, "confidence") {
                confidence = try reader.integerField("confidence", range: 1...3, &issue).flatMap {
                    EventConfidence(rawValue: UInt8($0))
                }
            } else if reader.matches(key, "exitReason") {
                exitReason = try reader.enumField(
                    "exitReason", choices: "user_left, geofence_disabled, geofence_deleted", &issue
                ) { bytes in ExitReason.allCases.first { $0.name.utf8.elementsEqual(bytes) } }
            } else if reader.matches(key, "trip") {
                // Needs createdAt for a default, which may come later.
                tripRange = try reader.captureValue()
            } else {
                try reader.skipValue()
            }
        }
        try reader.finish()
        if let issue { throw issue }
        guard let type else { throw .missing("type") }
        guard let createdAt else { throw .missing("createdAt") }
        guard let userId else { throw .missing("user.userId") }
        var trip: TripSnapshot?
        if let tripRange {
            var sub = reader.subReader(tripRange)
            trip = try self.trip(&sub, createdAt: createdAt, &issue)
            if let issue { throw issue }
        }
        let event = Event(
            id: id, type: type, userId: userId, createdAt: createdAt, replayed: replayed, late: late,
            revision: revision,
            location: location, locationAccuracy: accuracy, deviceId: deviceId, userMetadata: userMetadata,
            geofence: geofence, durationSeconds: durationSeconds, trip: trip, confidence: confidence,
            exitReason: exitReason)
        return DecodedEvent(event: event, actualCreatedAt: actualCreatedAt)
    }

    // MARK: - Parts

    private static func eventID(_ reader: inout JSONReader, _ issue: inout DecodeError?) throws(DecodeError)
        -> EventID?
    {
        guard let text = try reader.stringField("_id", maxBytes: 24, &issue) else { return nil }
        let utf8 = Array(text.utf8)
        var high: UInt64 = 0
        var low: UInt32 = 0
        guard utf8.count == 24 else {
            JSONReader.note(DecodeError(.wrongType, "_id must be 24 hex digits, got \"\(text)\""), &issue)
            return nil
        }
        for (i, c) in utf8.enumerated() {
            guard let d = JSONReader.hexValue(c), c < UInt8(ascii: "A") || c > UInt8(ascii: "F") else {
                JSONReader.note(DecodeError(.wrongType, "_id must be 24 lowercase hex digits, got \"\(text)\""), &issue)
                return nil
            }
            if i < 16 { high = high << 4 | UInt64(d) } else { low = low << 4 | UInt32(d) }
        }
        return EventID(high: high, low: low)
    }

    /// Minutes (at most two decimals are meaningful) back to whole seconds, ties away from zero.
    private static func seconds(
        _ field: StaticString, _ reader: inout JSONReader, _ issue: inout DecodeError?
    ) throws(DecodeError) -> Int32? {
        guard let number = try reader.numberField(field, &issue) else { return nil }
        guard let e7 = number.scaledE7, abs(e7) <= Int64(Int32.max) / 60 * 10_000_000 else {
            JSONReader.note(DecodeError(.valueOutOfRange, "\(field) \(reader.text(number)) out of range"), &issue)
            return nil
        }
        // minutes × 60 = e7 × 6 / 10⁶
        let scaled = e7.magnitude * 6
        let rounded = Int64((scaled + 500_000) / 1_000_000)
        return Int32(e7 < 0 ? -rounded : rounded)
    }

    private static func user(
        _ reader: inout JSONReader, _ issue: inout DecodeError?, _ userId: inout String?, _ deviceId: inout String?,
        _ metadata: inout RawJSON?
    ) throws(DecodeError) {
        guard reader.peekKind() == .object else {
            try reader.skipWrongType("user", expected: "an object", &issue)
            return
        }
        var cursor = try reader.beginObject()
        while let key = try reader.nextKey(&cursor) {
            if reader.matches(key, "userId") {
                userId = try reader.stringField("user.userId", &issue)
            } else if reader.matches(key, "deviceId") {
                deviceId = try reader.stringField("user.deviceId", nullable: true, &issue)
            } else if reader.matches(key, "metadata") {
                metadata = try reader.metadataField("user.metadata", &issue)
            } else {
                try reader.skipValue()
            }
        }
    }

    /// A polygon's radius may reach half round the earth (circles stop at `GeofenceDecoder.maxRadius`).
    static let maxGeometryRadius = 20_037_509.0

    private static func geofence(_ reader: inout JSONReader, _ issue: inout DecodeError?) throws(DecodeError)
        -> Geofence?
    {
        guard reader.peekKind() == .object else {
            try reader.skipWrongType("geofence", expected: "an object", &issue)
            return nil
        }
        var tag: String?
        var externalId: String?
        var description = ""
        var isCircle = true
        var center: Coordinate?
        var radius: Double?
        var metadata: RawJSON?
        var enabled = true
        var dwell: Int?
        var cursor = try reader.beginObject()
        while let key = try reader.nextKey(&cursor) {
            if reader.matches(key, "tag") {
                tag = try reader.stringField("geofence.tag", &issue)
            } else if reader.matches(key, "externalId") {
                externalId = try reader.stringField("geofence.externalId", &issue)
            } else if reader.matches(key, "description") {
                description =
                    try reader.stringField("geofence.description", maxBytes: 1024, allowEmpty: true, &issue) ?? ""
            } else if reader.matches(key, "type") {
                isCircle =
                    try reader.enumField("geofence.type", choices: "circle, polygon", &issue) { bytes in
                        bytes.elementsEqual("circle".utf8) ? true : bytes.elementsEqual("polygon".utf8) ? false : nil
                    } ?? true
            } else if reader.matches(key, "geometryCenter") {
                center = try reader.pointField("geofence.geometryCenter", &issue)
            } else if reader.matches(key, "geometryRadius") {
                radius = try reader.doubleField(
                    "geofence.geometryRadius", range: 0...Self.maxGeometryRadius, rangeText: "[0, 20037509]", &issue)
            } else if reader.matches(key, "metadata") {
                metadata = try reader.metadataField("geofence.metadata", &issue)
            } else if reader.matches(key, "enabled") {
                enabled = try reader.boolField("geofence.enabled", &issue) ?? true
            } else if reader.matches(key, "dwellThreshold") {
                dwell = try reader.integerField("geofence.dwellThreshold", range: 1...10_080, &issue).map { Int($0) }
            } else {
                try reader.skipValue()
            }
        }
        guard let tag, let externalId else {
            JSONReader.note(.missing(tag == nil ? "geofence.tag" : "geofence.externalId"), &issue)
            return nil
        }
        let shape: GeofenceShape =
            isCircle
            ? .circle(center: center ?? Coordinate(latitudeE7: 0, longitudeE7: 0), radius: radius ?? 0)
            : .polygon(rings: [])
        return Geofence(
            tag: tag, externalId: externalId, description: description, shape: shape, metadata: metadata,
            enabled: enabled, dwellThreshold: dwell,
            extent: isCircle ? nil : center.map { GeometryExtent(center: $0, radius: radius ?? .nan) })
    }

    private static func trip(
        _ reader: inout JSONReader, createdAt: UnixMillis, _ issue: inout DecodeError?
    ) throws(DecodeError) -> TripSnapshot? {
        guard reader.peekKind() == .object else {
            try reader.skipWrongType("trip", expected: "an object", &issue)
            return nil
        }
        var externalId: String?
        var status: TripStatus?
        var mode = TravelMode.car
        var tag: String?
        var destinationExternalId: String?
        var destination: Coordinate?
        var radius: Double?
        var approaching = 0
        var scheduled: UnixMillis?
        var metadata: RawJSON?
        var startedAt = createdAt
        var arrivedAt: UnixMillis?
        var eta: Eta?
        var delay: TripDelay?
        var threshold = 0
        var rising: UInt16 = 0
        var summary: TripSummary?
        var legs: [TripLeg] = []
        var currentLegId: String?
        var cursor = try reader.beginObject()
        while let key = try reader.nextKey(&cursor) {
            if reader.matches(key, "externalId") {
                externalId = try reader.stringField("trip.externalId", &issue)
            } else if reader.matches(key, "status") {
                status = try reader.enumField(
                    "trip.status", choices: "pending, started, approaching, arrived, completed, canceled, expired", &issue
                ) { bytes in TripStatus.allCases.first { $0.name.utf8.elementsEqual(bytes) } }
            } else if reader.matches(key, "mode") {
                mode =
                    try reader.enumField("trip.mode", choices: "car, truck, bike, foot, motorbike", &issue) { bytes in
                        TravelMode.allCases.first { $0.name.utf8.elementsEqual(bytes) }
                    } ?? .car
            } else if reader.matches(key, "destinationGeofenceTag") {
                tag = try reader.stringField("trip.destinationGeofenceTag", &issue)
            } else if reader.matches(key, "destinationGeofenceExternalId") {
                destinationExternalId = try reader.stringField("trip.destinationGeofenceExternalId", &issue)
            } else if reader.matches(key, "destinationLocation") {
                destination = try reader.pointField("trip.destinationLocation", &issue)
            } else if reader.matches(key, "destinationRadius") {
                radius =
                    try reader.doubleField(
                        "trip.destinationRadius", range: 0...Double.greatestFiniteMagnitude, rangeText: "[0, ∞)",
                        &issue)
            } else if reader.matches(key, "approachingThreshold") {
                approaching = Int(try reader.integerField("trip.approachingThreshold", range: 0...1440, &issue) ?? 0)
            } else if reader.matches(key, "scheduledArrivalAt") {
                scheduled = try reader.timestampField("trip.scheduledArrivalAt", &issue)
            } else if reader.matches(key, "delayThreshold") {
                threshold = Int(try reader.integerField("trip.delayThreshold", range: 0...1440, &issue) ?? 0)
            } else if reader.matches(key, "metadata") {
                metadata = try reader.metadataField("trip.metadata", &issue)
            } else if reader.matches(key, "startedAt") {
                startedAt = try reader.timestampField("trip.startedAt", &issue) ?? createdAt
            } else if reader.matches(key, "arrivedAt") {
                arrivedAt = try reader.timestampField("trip.arrivedAt", &issue)
            } else if reader.matches(key, "eta") {
                eta = try self.eta(&reader, &issue)
            } else if reader.matches(key, "delay") {
                delay = try self.delay(&reader, &issue)
            } else if reader.matches(key, "etaRising") {
                rising = UInt16(try reader.integerField("trip.etaRising", range: 0...65535, &issue) ?? 0)
            } else if reader.matches(key, "summary") {
                summary = try self.summary(&reader, &issue)
            } else if reader.matches(key, "legs") {
                legs = try reader.tripLegsField(&issue) ?? []
                // An event's legs are the fold's, each with its id (a command's may leave it to the fold):
                // one without would be written back as an empty currentLegId, which no event has.
                if legs.contains(where: \.id.isEmpty) { JSONReader.note(.missing("trip.legs[]._id"), &issue) }
            } else if reader.matches(key, "currentLegId") {
                currentLegId = try reader.stringField("trip.currentLegId", &issue)
            } else {
                try reader.skipValue()
            }
        }
        guard let externalId else {
            JSONReader.note(.missing("trip.externalId"), &issue)
            return nil
        }
        guard let status else {
            JSONReader.note(.missing("trip.status"), &issue)
            return nil
        }
        if let currentLegId, let current = legs.firstIndex(where: { $0.id == currentLegId }) {
            // The current leg shows the trip's status and arrival; it is pending until done.
            legs[current].status = .pending
            legs[current].arrivedAt = nil
        }
        // A geofence destination's destinationLocation is the geofence's center, not the plan's point.
        let geofenceCenter = tag != nil ? destination : nil
        if tag != nil { destination = nil }
        let plan = TripPlan(
            externalId: externalId, destinationGeofenceTag: tag, destinationGeofenceExternalId: destinationExternalId,
            destinationCoordinates: destination, destinationRadius: radius ?? Self.defaultDestinationRadius,
            mode: mode, approachingThreshold: approaching, scheduledArrivalAt: scheduled, delayThreshold: threshold,
            metadata: metadata, legs: legs)
        var snapshot = TripSnapshot(
            plan: plan, status: status, startedAt: startedAt, eta: eta, delay: delay, etaRisingStreak: rising,
            arrivedAt: arrivedAt, summary: summary)
        snapshot.destinationLocation = geofenceCenter
        return snapshot
    }

    private static func eta(_ reader: inout JSONReader, _ issue: inout DecodeError?) throws(DecodeError) -> Eta? {
        var duration: Int32?, low: Int32?, high: Int32?
        var distance: Int64?
        guard reader.peekKind() == .object else {
            try reader.skipWrongType("trip.eta", expected: "an object", &issue)
            return nil
        }
        var cursor = try reader.beginObject()
        while let key = try reader.nextKey(&cursor) {
            if reader.matches(key, "duration") {
                duration = try seconds("trip.eta.duration", &reader, &issue)
            } else if reader.matches(key, "distance") {
                distance = try distanceMeters("trip.eta.distance", &reader, &issue)
            } else if reader.matches(key, "durationLow") {
                low = try seconds("trip.eta.durationLow", &reader, &issue)
            } else if reader.matches(key, "durationHigh") {
                high = try seconds("trip.eta.durationHigh", &reader, &issue)
            } else {
                try reader.skipValue()
            }
        }
        return Eta(durationSeconds: duration ?? 0, distanceMeters: Int32(distance ?? 0), durationLowSeconds: low,
                   durationHighSeconds: high)
    }

    /// Meters: our events write integers, Radar's may have decimals (rounded here).
    private static func distanceMeters(
        _ field: StaticString, _ reader: inout JSONReader, _ issue: inout DecodeError?
    ) throws(DecodeError) -> Int64? {
        guard
            let meters = try reader.doubleField(
                field, range: -Double(Int32.max)...Double(Int32.max), rangeText: "[-2^31, 2^31)", &issue)
        else { return nil }
        return Int64(meters.rounded())
    }

    private static func delay(_ reader: inout JSONReader, _ issue: inout DecodeError?) throws(DecodeError)
        -> TripDelay?
    {
        guard reader.peekKind() == .object else {
            try reader.skipWrongType("trip.delay", expected: "an object", &issue)
            return nil
        }
        var delayed = false
        var minutes: Int64?
        var cursor = try reader.beginObject()
        while let key = try reader.nextKey(&cursor) {
            if reader.matches(key, "delayed") {
                delayed = try reader.boolField("trip.delay.delayed", &issue) ?? false
            } else if reader.matches(key, "scheduledArrivalTimeDelay") {
                minutes = try reader.integerField(
                    "trip.delay.scheduledArrivalTimeDelay", range: Int64(Int32.min)...Int64(Int32.max), &issue)
            } else {
                try reader.skipValue()
            }
        }
        return TripDelay(delayed: delayed, minutes: Int32(minutes ?? 0))
    }

    private static func summary(_ reader: inout JSONReader, _ issue: inout DecodeError?) throws(DecodeError)
        -> TripSummary?
    {
        guard reader.peekKind() == .object else {
            try reader.skipWrongType("trip.summary", expected: "an object", &issue)
            return nil
        }
        var distance: Int64?
        var duration: Int32?
        var onSite: Int32?
        var errors = EtaErrors()
        var inRange: (Bool?, Bool?, Bool?) = (nil, nil, nil)
        var cursor = try reader.beginObject()
        while let key = try reader.nextKey(&cursor) {
            if reader.matches(key, "distance") {
                distance = try distanceMeters("trip.summary.distance", &reader, &issue)
            } else if reader.matches(key, "duration") {
                duration = try seconds("trip.summary.duration", &reader, &issue)
            } else if reader.matches(key, "timeOnSite") {
                onSite = try seconds("trip.summary.timeOnSite", &reader, &issue)
            } else if reader.matches(key, "etaError25") {
                errors.quarter = try seconds("trip.summary.etaError25", &reader, &issue)
            } else if reader.matches(key, "etaError50") {
                errors.half = try seconds("trip.summary.etaError50", &reader, &issue)
            } else if reader.matches(key, "etaError75") {
                errors.threeQuarters = try seconds("trip.summary.etaError75", &reader, &issue)
            } else if reader.matches(key, "etaInRange25") {
                inRange.0 = try reader.boolField("trip.summary.etaInRange25", &issue)
            } else if reader.matches(key, "etaInRange50") {
                inRange.1 = try reader.boolField("trip.summary.etaInRange50", &issue)
            } else if reader.matches(key, "etaInRange75") {
                inRange.2 = try reader.boolField("trip.summary.etaInRange75", &issue)
            } else {
                try reader.skipValue()
            }
        }
        return TripSummary(
            distanceMeters: Int32(distance ?? 0), durationSeconds: duration ?? 0, timeOnSiteSeconds: onSite,
            etaErrors: EtaErrors(quarter: errors.quarter, half: errors.half, threeQuarters: errors.threeQuarters,
                                 inRange: inRange))
    }
}
