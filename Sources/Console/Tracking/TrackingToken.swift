import Crypto

/// A customer's tracking token: one user's one trip, valid until `expiresAfterSeconds` after the trip ends.
///
/// Text form, version 2 (what ``encoded(secret:)`` mints): `v2.<user>.<trip>.<seconds>.<mac>`, user and trip in
/// unpadded base64url, seconds in decimal, `mac` the base64url HMAC-SHA256 under the console's secret of the text
/// before the last dot, `v2.<user>.<trip>.<seconds>`. Base64url has no `.` and every part has one spelling, so
/// that text names one (user, trip, seconds) whatever bytes the ids hold: no two trips share a MAC message.
/// A notification service mints the same token with any HMAC library (docs/http-and-tracking.md).
///
/// Version 1 (links sent before v2): the MAC of `"v1\n" + user + "\n" + trip + "\n" + seconds`, ambiguous once
/// an id holds a line break (`a` + `b\nc` and `a\nb` + `c` share it). v1 links are still verified, but only for
/// users without control characters, as every userId of the topics is (Codec refuses the rest): the user then
/// ends at the message's first line break and the seconds (digits) follow its last, so the message names one
/// triple and a v1 MAC cannot be moved to another trip.
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
        /// Not a token's shape: not five dot-separated parts, an unknown version, characters outside base64url,
        /// seconds that are not digits; or signed, but naming no trip a token can name.
        case malformed
        /// A token's shape whose MAC does not match: tampered, minted under another secret, or a v1 token whose
        /// user holds a control character (its MAC could belong to another split of the same message).
        case badSignature
    }

    /// The v2 text before its MAC: what the MAC covers.
    static func signedPart(user: String, trip: String, seconds: Int64) -> String {
        "v2.\(Base64URL.encode(Array(user.utf8))).\(Base64URL.encode(Array(trip.utf8))).\(seconds)"
    }

    public func encoded(secret: [UInt8]) -> String {
        let signed = Self.signedPart(user: user, trip: trip, seconds: expiresAfterSeconds)
        return signed + "." + Base64URL.encode(HMACSHA256.authenticate(Array(signed.utf8), key: secret))
    }

    /// The token `text` stands for, when its MAC checks out under `secret`.
    public static func verify(_ text: String, secret: [UInt8]) throws(Failure) -> TrackingToken {
        guard text.utf8.count <= maximumLength else { throw .malformed }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "v1" || parts[0] == "v2",
            [parts[1], parts[2], parts[4]].allSatisfy(isBase64URLText), isDigits(parts[3])
        else { throw .malformed }
        let mac = Base64URL.decode(String(parts[4]))
        let user = Base64URL.decode(String(parts[1])).flatMap { String(validating: $0, as: UTF8.self) }
        let trip = Base64URL.decode(String(parts[2])).flatMap { String(validating: $0, as: UTF8.self) }
        if parts[0] == "v2" {
            let signed = Array(text.utf8.prefix(text.utf8.count - parts[4].utf8.count - 1))
            guard let mac, HMACSHA256.constantTimeEqual(mac, HMACSHA256.authenticate(signed, key: secret)) else {
                throw .badSignature
            }
        } else {
            guard let mac, let user, let trip, !user.unicodeScalars.contains(where: isControl) else { throw .badSignature }
            let message = Array("v1\n\(user)\n\(trip)\n\(parts[3])".utf8)
            guard HMACSHA256.constantTimeEqual(mac, HMACSHA256.authenticate(message, key: secret)) else {
                throw .badSignature
            }
        }
        // Signed by this secret: the fields must still be ones a token can name.
        guard let user, let trip, !user.isEmpty, !trip.isEmpty, let seconds = Int64(parts[3]),
            seconds <= maximumExpirySeconds, String(seconds) == parts[3]
        else { throw .malformed }
        return TrackingToken(user: user, trip: trip, expiresAfterSeconds: seconds)
    }

    private static func isBase64URLText(_ part: Substring) -> Bool {
        !part.isEmpty && part.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
            default: false
            }
        }
    }

    private static func isDigits(_ part: Substring) -> Bool {
        !part.isEmpty && part.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Unicode's `Cc` category: C0 controls, DEL and C1 controls, as Codec's `Identifier` refuses them.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.generalCategory == .control }
}
