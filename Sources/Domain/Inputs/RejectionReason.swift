/// Why an input could not be used. Every rejected record goes to the dead-letter topic with one of
/// these (its `rawValue` is the wire name) and increments the counter of that reason.
public enum RejectionReason: String, CaseIterable, Sendable {
    // Decoding (Codec).
    case invalidJSON = "invalid_json"
    /// A JSON value other than an object, or a Kafka record with a null value (a tombstone) where a
    /// fix or a trip command was expected.
    case notAnObject = "not_an_object"
    case missingField = "missing_field"
    case wrongType = "wrong_type"
    case emptyString = "empty_string"
    case stringTooLong = "string_too_long"
    case recordTooLarge = "record_too_large"
    case nonFiniteNumber = "non_finite_number"
    case coordinateOutOfRange = "coordinate_out_of_range"
    case valueOutOfRange = "value_out_of_range"
    case badTimestamp = "bad_timestamp"
    case absurdTimestamp = "absurd_timestamp"
    case unknownEnumValue = "unknown_enum_value"
    case invalidGeometry = "invalid_geometry"
    /// An identifier (`userId`, `deviceId`) holding a control character: U+0000–U+001F, U+007F or
    /// U+0080–U+009F (Unicode's Cc category).
    case invalidIdentifier = "invalid_identifier"
    /// A record key other than the one its value names (`tag/externalId` for a geofence, the
    /// `userId` for a fix or a trip command read from Kafka).
    case keyMismatch = "key_mismatch"
    // Ordering and the fold.
    case tooLate = "too_late"
    case futureTimestamp = "future_timestamp"
    /// More inputs of one user at the same millisecond than any device sends (a flood): history
    /// segments never split equal times, so they are bounded here.
    case timestampFlood = "timestamp_flood"
    /// A trip command asking for a status its trip cannot take: one no command sets (`expired`), or
    /// one the trip cannot reach from its current status (arrived → started). Kept in the user's
    /// history as a no-op: a late input placed before it can make it valid.
    case invalidTransition = "invalid_transition"
    /// An output (event or ETA update) larger than the broker's message size limit: published as
    /// this dead letter instead (with its first bytes), so it cannot block every later transaction.
    case outputTooLarge = "output_too_large"
}
