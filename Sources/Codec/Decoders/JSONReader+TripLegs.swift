import Domain

/// Radar's trip legs, as trip commands bring them and events show them:
/// `[{"_id", "destination": {"destinationGeofenceTag", "destinationGeofenceExternalId"} or
/// {"coordinates": [lng, lat], "arrivalRadius"}, "stopDuration", "metadata", "status", "arrivedAt"}, …]`.
/// `stopDuration` is whole minutes, 0…1440; `arrivalRadius` meters, 1…100000; at most 100 legs.
extension JSONReader {
    static let maxTripLegs = 100

    mutating func tripLegsField(_ issue: inout DecodeError?) throws(DecodeError) -> [TripLeg]? {
        guard peekKind() == .array else {
            try skipWrongType("trip.legs", expected: "an array", &issue)
            return nil
        }
        var legs: [TripLeg] = []
        var cursor = try beginArray()
        while try nextElement(&cursor) {
            guard legs.count < Self.maxTripLegs else {
                try skipValue()
                Self.note(DecodeError(.valueOutOfRange, "trip.legs has more than \(Self.maxTripLegs) legs"), &issue)
                continue
            }
            if let leg = try tripLeg(&issue) { legs.append(leg) }
        }
        var ids = Set<String>()
        for leg in legs where !leg.id.isEmpty && !ids.insert(leg.id).inserted {
            Self.note(DecodeError(.invalidTransition, "trip.legs repeats _id \"\(leg.id)\""), &issue)
        }
        return legs
    }

    /// `["id", …]`: the order of `reorderLegs`.
    mutating func legIdsField(_ issue: inout DecodeError?) throws(DecodeError) -> [String]? {
        guard peekKind() == .array else {
            try skipWrongType("trip.legIds", expected: "an array of leg ids", &issue)
            return nil
        }
        var ids: [String] = []
        var cursor = try beginArray()
        while try nextElement(&cursor) {
            if let id = try stringField("trip.legIds[]", &issue) { ids.append(id) }
        }
        guard ids.count <= Self.maxTripLegs else {
            Self.note(DecodeError(.valueOutOfRange, "trip.legIds has more than \(Self.maxTripLegs) ids"), &issue)
            return nil
        }
        return ids
    }

    private mutating func tripLeg(_ issue: inout DecodeError?) throws(DecodeError) -> TripLeg? {
        guard peekKind() == .object else {
            try skipWrongType("trip.legs[]", expected: "an object", &issue)
            return nil
        }
        var leg = TripLeg()
        var hasDestination = false
        var cursor = try beginObject()
        while let key = try nextKey(&cursor) {
            if matches(key, "_id") {
                leg.id = try stringField("trip.legs[]._id", &issue) ?? ""
            } else if matches(key, "destination") {
                hasDestination = true
                try legDestination(&leg, &issue)
            } else if matches(key, "stopDuration") {
                leg.stopDuration = Int(try integerField("trip.legs[].stopDuration", range: 0...1440, &issue) ?? 0)
            } else if matches(key, "metadata") {
                leg.metadata = try metadataField("trip.legs[].metadata", &issue)
            } else if matches(key, "status") {
                leg.status = try enumField(
                    "trip.legs[].status", choices: "pending, started, approaching, arrived, completed, canceled, expired",
                    &issue
                ) { bytes in TripStatus.allCases.first { $0.name.utf8.elementsEqual(bytes) } } ?? .pending
            } else if matches(key, "arrivedAt") {
                leg.arrivedAt = try timestampField("trip.legs[].arrivedAt", &issue)
            } else {
                try skipValue()
            }
        }
        let geofence = leg.destinationGeofenceTag != nil && leg.destinationGeofenceExternalId != nil
        let halfGeofence = (leg.destinationGeofenceTag == nil) != (leg.destinationGeofenceExternalId == nil)
        guard hasDestination, !halfGeofence, geofence != (leg.destinationCoordinates != nil) else {
            Self.note(
                DecodeError(
                    .missingField,
                    "missing field \"trip.legs[].destination\" with destinationGeofenceTag and "
                        + "destinationGeofenceExternalId, or coordinates"),
                &issue)
            return nil
        }
        return leg
    }

    private mutating func legDestination(_ leg: inout TripLeg, _ issue: inout DecodeError?) throws(DecodeError) {
        guard peekKind() == .object else {
            try skipWrongType("trip.legs[].destination", expected: "an object", &issue)
            return
        }
        var cursor = try beginObject()
        while let key = try nextKey(&cursor) {
            if matches(key, "destinationGeofenceTag") {
                leg.destinationGeofenceTag = try stringField("trip.legs[].destination.destinationGeofenceTag", &issue)
            } else if matches(key, "destinationGeofenceExternalId") {
                leg.destinationGeofenceExternalId = try stringField(
                    "trip.legs[].destination.destinationGeofenceExternalId", &issue)
            } else if matches(key, "coordinates") {
                leg.destinationCoordinates = try position("trip.legs[].destination.coordinates", &issue)
            } else if matches(key, "arrivalRadius") {
                leg.arrivalRadius = try doubleField(
                    "trip.legs[].destination.arrivalRadius", range: 1...100_000, rangeText: "[1, 100000]", &issue)
            } else {
                try skipValue()
            }
        }
    }
}
