import Domain

/// Decodes a trip command (`tripstream.trip-commands`, `schemas/trip-command.schema.json`):
/// `{"type": "start"|"update"|"complete"|"cancel"|"addLegs"|"reorderLegs"|"updateLeg", "userId",
/// "createdAt", "trip": {…}}` with the trip fields named as RadarTripOptions.
///
/// A `start` needs a destination: `destinationGeofenceTag` with `destinationGeofenceExternalId`,
/// or `destinationCoordinates` ([lng, lat]), or `legs` (Radar's trip legs; see `tripLegsField`).
/// `addLegs` needs `legs`, `reorderLegs` `legIds` (the pending legs' ids in their new order),
/// `updateLeg` `legId` and `status` (arrived, completed, or canceled: skip). The tag and the external id always come as a pair.
/// `approachingThreshold` is whole minutes, 1…1440; `destinationRadius` meters, 1…100000;
/// `expiresAfter` whole minutes, 1…43200. `status` (Radar's update-trip status) is `pending` or
/// `started` in a start and `started`, `approaching`, `arrived`, `completed` or `canceled` in an
/// update, else `invalid_transition`.
/// `userId` (1…256 bytes) may not hold control characters (`invalid_identifier`, see `Identifier`).
public enum TripCommandDecoder {
    public static func decode(_ bytes: [UInt8]) throws(DecodeError) -> TripCommand {
        try bytes.withUnsafeBytes { buffer in Result { () throws(DecodeError) in try decode(buffer) } }.get()
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> TripCommand {
        guard bytes.count <= FixDecoder.maxRecordBytes else {
            throw DecodeError(.recordTooLarge, "record is \(bytes.count) bytes, limit \(FixDecoder.maxRecordBytes)")
        }
        var reader = JSONReader(bytes)
        try reader.expectTopLevelObject()
        var issue: DecodeError?
        var kind: TripCommand.Kind?
        var userId: String?
        var createdAt: UnixMillis?
        var trip: TripOptions?
        var hasTrip = false
        var hasExternalId = false

        var cursor = try reader.beginObject()
        while let key = try reader.nextKey(&cursor) {
            if reader.matches(key, "type") {
                kind = try reader.enumField(
                    "type", choices: "start, update, complete, cancel, addLegs, reorderLegs, updateLeg", nullable: false,
                    &issue
                ) { bytes in TripCommand.Kind.allCases.first { $0.name.utf8.elementsEqual(bytes) } }
            } else if reader.matches(key, "userId") {
                userId = try reader.stringField("userId", identifier: true, &issue)
            } else if reader.matches(key, "createdAt") {
                createdAt = try reader.timestampField("createdAt", &issue)
            } else if reader.matches(key, "trip") {
                hasTrip = true
                guard reader.peekKind() == .object else {
                    try reader.skipWrongType("trip", expected: "an object", &issue)
                    continue
                }
                (trip, hasExternalId) = try decodeTrip(&reader, &issue)
            } else {
                try reader.skipValue()
            }
        }
        try reader.finish()
        if let issue { throw issue }
        guard let kind else { throw .missing("type") }
        guard let userId else { throw .missing("userId") }
        guard let createdAt else { throw .missing("createdAt") }
        guard hasTrip else { throw .missing("trip") }
        guard hasExternalId, let trip else { throw .missing("trip.externalId") }
        if (trip.destinationGeofenceTag == nil) != (trip.destinationGeofenceExternalId == nil) {
            throw trip.destinationGeofenceTag == nil
                ? .missing("trip.destinationGeofenceTag") : .missing("trip.destinationGeofenceExternalId")
        }
        if kind == .start && trip.destinationGeofenceTag == nil && trip.destinationCoordinates == nil
            && (trip.legs ?? []).isEmpty
        {
            throw DecodeError(
                .missingField,
                "missing field \"trip.destinationGeofenceTag\" with \"trip.destinationGeofenceExternalId\", "
                    + "or \"trip.destinationCoordinates\": a start needs a destination")
        }
        if kind == .addLegs, (trip.legs ?? []).isEmpty { throw .missing("trip.legs") }
        if kind == .reorderLegs, trip.legIds == nil { throw .missing("trip.legIds") }
        if kind == .updateLeg {
            guard trip.legId != nil else { throw .missing("trip.legId") }
            guard trip.status != nil else { throw .missing("trip.status") }
        }
        if let status = trip.status, !Self.allows(status, in: kind) {
            throw DecodeError(
                .invalidTransition,
                "trip.status \"\(status.name)\" cannot be set by \(kind.name.first == "u" || kind.name.first == "a" ? "an" : "a") \(kind.name) command: "
                    + Self.settableStatuses(kind))
        }
        return TripCommand(kind: kind, userId: userId, createdAt: createdAt, trip: trip)
    }

    private static func settableStatuses(_ kind: TripCommand.Kind) -> String {
        switch kind {
        case .start: "a start sets pending or started"
        case .update: "an update sets started, approaching, arrived, completed or canceled"
        case .updateLeg: "an updateLeg sets arrived, completed or canceled"
        case .complete, .cancel: "it sets only its own"
        case .addLegs, .reorderLegs: "it sets none"
        }
    }

    /// The statuses each kind of command may set (`TripStatus.allowsCommand` checks the trip's side).
    private static func allows(_ status: TripStatus, in kind: TripCommand.Kind) -> Bool {
        switch kind {
        case .start: status == .pending || status == .started
        case .update: status != .pending && status != .expired
        case .complete: status == .completed
        case .cancel: status == .canceled
        case .addLegs, .reorderLegs: false
        case .updateLeg: status == .arrived || status == .completed || status == .canceled
        }
    }

    /// Reads the `trip` object. Returns nil options if `externalId` is missing (and says whether it was).
    private static func decodeTrip(
        _ reader: inout JSONReader, _ issue: inout DecodeError?
    ) throws(DecodeError) -> (TripOptions?, Bool) {
        var externalId: String?
        var sawExternalId = false
        var options = TripOptions(externalId: "")
        var cursor = try reader.beginObject()
        while let key = try reader.nextKey(&cursor) {
            if reader.matches(key, "externalId") {
                sawExternalId = true
                externalId = try reader.stringField("trip.externalId", &issue)
            } else if reader.matches(key, "destinationGeofenceTag") {
                options.destinationGeofenceTag = try reader.stringField(
                    "trip.destinationGeofenceTag", nullable: true, &issue)
            } else if reader.matches(key, "destinationGeofenceExternalId") {
                options.destinationGeofenceExternalId = try reader.stringField(
                    "trip.destinationGeofenceExternalId", nullable: true, &issue)
            } else if reader.matches(key, "destinationCoordinates") {
                if try reader.skipNull() { continue }
                options.destinationCoordinates = try reader.position("trip.destinationCoordinates", &issue)
            } else if reader.matches(key, "destinationRadius") {
                options.destinationRadius = try reader.doubleField(
                    "trip.destinationRadius", range: 1...100_000, rangeText: "[1, 100000]", &issue)
            } else if reader.matches(key, "mode") {
                options.mode = try reader.enumField(
                    "trip.mode", choices: "car, truck, bike, foot, motorbike", &issue
                ) { bytes in TravelMode.allCases.first { $0.name.utf8.elementsEqual(bytes) } }
            } else if reader.matches(key, "approachingThreshold") {
                options.approachingThreshold = try reader.integerField(
                    "trip.approachingThreshold", range: 1...1440, &issue
                ).map { Int($0) }
            } else if reader.matches(key, "delayThreshold") {
                options.delayThreshold = try reader.integerField(
                    "trip.delayThreshold", range: 0...1440, &issue
                ).map { Int($0) }
            } else if reader.matches(key, "scheduledArrivalAt") {
                options.scheduledArrivalAt = try reader.timestampField(
                    "trip.scheduledArrivalAt", nullable: true, &issue)
            } else if reader.matches(key, "expiresAfter") {
                options.expiresAfter = try reader.integerField(
                    "trip.expiresAfter", range: 1...43_200, &issue
                ).map { Int($0) }
            } else if reader.matches(key, "wrongDestination") {
                options.wrongDestination = try reader.enumField(
                    "trip.wrongDestination", choices: "stop, entry, off", &issue
                ) { bytes in WrongDestinationRule.allCases.first { $0.name.utf8.elementsEqual(bytes) } }
            } else if reader.matches(key, "status") {
                options.status = try reader.enumField(
                    "trip.status", choices: "pending, started, approaching, arrived, completed, canceled, expired", &issue
                ) { bytes in TripStatus.allCases.first { $0.name.utf8.elementsEqual(bytes) } }
            } else if reader.matches(key, "legs") {
                if try reader.skipNull() { continue }
                options.legs = try reader.tripLegsField(&issue)
            } else if reader.matches(key, "legId") {
                options.legId = try reader.stringField("trip.legId", &issue)
            } else if reader.matches(key, "legIds") {
                if try reader.skipNull() { continue }
                options.legIds = try reader.legIdsField(&issue)
            } else if reader.matches(key, "metadata") {
                options.metadata = try reader.metadataField("trip.metadata", &issue)
            } else {
                try reader.skipValue()
            }
        }
        guard let externalId else { return (nil, sawExternalId && issue == nil) }
        options.externalId = externalId
        return (options, true)
    }
}
