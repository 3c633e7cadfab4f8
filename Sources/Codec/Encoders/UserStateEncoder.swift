import Domain

/// Encodes a user's latest state for the compacted `tripstream.users` topic (the live map;
/// `schemas/user-state.schema.json`): `userId`, `updatedAt`, `deviceId`, `metadata`, `lastFixAt`,
/// `location`, `locationAccuracy` (m), `speed` (m/s), `trip` (as in events), `geofences`
/// [{`tag`, `externalId`, `description`, `enteredAt`}].
public enum UserStateEncoder {
    /// Appends the record (no newline). `updatedAt` is processing time.
    public static func encode(_ snapshot: UserSnapshot, updatedAt: UnixMillis, into buffer: inout [UInt8]) {
        JSONWriter.append(to: &buffer) { w in
            w.raw("{\"userId\":")
            w.string(snapshot.userId)
            w.raw(",\"updatedAt\":")
            w.timestamp(updatedAt)
            if let deviceId = snapshot.deviceId {
                w.raw(",\"deviceId\":")
                w.string(deviceId)
            }
            if let metadata = snapshot.metadata {
                w.raw(",\"metadata\":")
                w.raw(metadata)
            }
            if let lastFixAt = snapshot.lastFixAt {
                w.raw(",\"lastFixAt\":")
                w.timestamp(lastFixAt)
            }
            if let location = snapshot.location {
                w.raw(",\"location\":")
                w.point(location)
            }
            if snapshot.locationAccuracy.isFinite {
                w.raw(",\"locationAccuracy\":")
                w.float(snapshot.locationAccuracy)
            }
            if snapshot.speed.isFinite {
                w.raw(",\"speed\":")
                w.float(snapshot.speed)
            }
            if var trip = snapshot.trip {
                w.raw(",\"trip\":")
                w.trip(&trip)
            }
            w.raw(",\"geofences\":[")
            for (i, presence) in snapshot.geofences.enumerated() {
                w.raw(i == 0 ? "{\"tag\":" : ",{\"tag\":")
                w.string(presence.geofence.tag)
                w.raw(",\"externalId\":")
                w.string(presence.geofence.externalId)
                w.raw(",\"description\":")
                w.string(presence.geofence.description)
                w.raw(",\"enteredAt\":")
                w.timestamp(presence.enteredAt)
                w.byte(UInt8(ascii: "}"))
            }
            w.raw("]}")
        }
    }
}
