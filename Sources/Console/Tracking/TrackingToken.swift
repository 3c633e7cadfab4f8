/// A customer's tracking token: one user's one trip, valid until `expiresAfterSeconds` after the trip ends.
///
/// Text form: `v1.<user>.<trip>.<seconds>.<mac>`, user and trip in base64url, `mac` the base64url
/// HMAC-SHA256 under the console's secret of `"v1\n" + user + "\n" + trip + "\n" + seconds`. A
/// notification service mints the same token with any HMAC library (docs/console-and-tracking.md).
public struct TrackingToken: Equatable, Sendable {
    public var user: String
    public var trip: String
    public var expiresAfterSeconds: Int64

    public static let maximumExpirySeconds: Int64 = 366 * 86_400
    /// Longest token text accepted; longer ones are refused before any decoding.
    public static let maximumLength = 1024

    public init(user: String, trip: String, expiresAfterSeconds: Int64) {
        self.user = user
        self.trip = trip
        self.expiresAfterSeconds = expiresAfterSeconds
    }

    public enum Failure: Error, Equatable {
        /// Not the token's shape (parts, base64url, number).
        case malformed
        /// The MAC does not match: tampered, or minted under another secret.
        case badSignature
    }

    static func message(user: String, trip: String, seconds: Int64) -> [UInt8] {
        Array("v1\n\(user)\n\(trip)\n\(seconds)".utf8)
    }

    public func encoded(secret: [UInt8]) -> String {
        let mac = HMACSHA256.authenticate(Self.message(user: user, trip: trip, seconds: expiresAfterSeconds), key: secret)
        return "v1.\(Base64URL.encode(Array(user.utf8))).\(Base64URL.encode(Array(trip.utf8))).\(expiresAfterSeconds)."
            + Base64URL.encode(mac)
    }

    /// The token `text` stands for, when its MAC checks out under `secret`.
    public static func verify(_ text: String, secret: [UInt8]) throws(Failure) -> TrackingToken {
        guard text.utf8.count <= maximumLength else { throw .malformed }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "v1",
            let userBytes = Base64URL.decode(String(parts[1])), let user = String(validating: userBytes, as: UTF8.self),
            let tripBytes = Base64URL.decode(String(parts[2])), let trip = String(validating: tripBytes, as: UTF8.self),
            !user.isEmpty, !trip.isEmpty,
            parts[3].allSatisfy(\.isASCII), let seconds = Int64(parts[3]), seconds >= 0, seconds <= maximumExpirySeconds,
            String(seconds) == parts[3],
            let mac = Base64URL.decode(String(parts[4]))
        else { throw .malformed }
        let expected = HMACSHA256.authenticate(message(user: user, trip: trip, seconds: seconds), key: secret)
        guard HMACSHA256.constantTimeEqual(mac, expected) else { throw .badSignature }
        return TrackingToken(user: user, trip: trip, expiresAfterSeconds: seconds)
    }
}
