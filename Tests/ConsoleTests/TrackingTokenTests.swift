import Crypto
import Testing

@testable import Console

@Suite(.timeLimit(.minutes(5))) struct TrackingTokenTests {
    let secret = Array("a secret of at least sixteen bytes".utf8)
    let token = TrackingToken(user: "driver-7", trip: "trip/42 é", expiresAfterSeconds: 3600)
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    /// A v1 token as the console minted them before v2 (README's old recipe).
    func v1Token(user: String, trip: String, seconds: Int64) -> String {
        let mac = HMACSHA256.authenticate(Array("v1\n\(user)\n\(trip)\n\(seconds)".utf8), key: secret)
        return "v1.\(Base64URL.encode(Array(user.utf8))).\(Base64URL.encode(Array(trip.utf8))).\(seconds)."
            + Base64URL.encode(mac)
    }

    @Test func roundTrips() throws {
        let text = token.encoded(secret: secret)
        #expect(try TrackingToken.verify(text, secret: secret) == token)
        #expect(text.hasPrefix("v2."))
        #expect(text.allSatisfy { $0.isLetter || $0.isNumber || "-_.".contains($0) })
    }

    /// The documented construction, which a notification service reproduces in a few lines of Python: the MAC
    /// of the token's own text before its last dot.
    @Test func macIsTheHMACOfTheTextBeforeIt() {
        let text = token.encoded(secret: secret)
        let signed = "v2.ZHJpdmVyLTc.\(Base64URL.encode(Array("trip/42 é".utf8))).3600"
        #expect(text == signed + "." + Base64URL.encode(HMACSHA256.authenticate(Array(signed.utf8), key: secret)))
    }

    @Test func anyChangedPartIsRefused() {
        let parts = token.encoded(secret: secret).split(separator: ".").map(String.init)
        var tampered: [[String]] = []
        tampered.append([parts[0], Base64URL.encode(Array("driver-8".utf8)), parts[2], parts[3], parts[4]])
        tampered.append([parts[0], parts[1], Base64URL.encode(Array("trip/43 é".utf8)), parts[3], parts[4]])
        tampered.append([parts[0], parts[1], parts[2], "360000", parts[4]])
        tampered.append(["v1", parts[1], parts[2], parts[3], parts[4]])  // a v2 MAC is no v1 MAC
        var mac = Base64URL.decode(parts[4])!
        mac[5] ^= 1
        tampered.append([parts[0], parts[1], parts[2], parts[3], Base64URL.encode(mac)])
        for parts in tampered {
            #expect(throws: TrackingToken.Failure.badSignature) {
                try TrackingToken.verify(parts.joined(separator: "."), secret: secret)
            }
        }
        #expect(throws: TrackingToken.Failure.badSignature) {
            try TrackingToken.verify(token.encoded(secret: Array("another secret, sixteen+ bytes".utf8)), secret: secret)
        }
    }

    /// Every character of a v2 and of a v1 token replaced by base64url characters of each kind, digits and a dot: none
    /// verifies; the ones still shaped like a token are `badSignature` (403), the others `malformed` (400).
    @Test func everyTamperedCharacterIsRefused() {
        for text in [token.encoded(secret: secret), v1Token(user: "driver-7", trip: "trip-9", seconds: 60)] {
            let original = Array(text)
            for index in original.indices {
                for replacement in Array("ABz09-_.") where replacement != original[index] {
                    var changed = original
                    changed[index] = replacement
                    let candidate = String(changed)
                    let shaped = Self.isTokenShaped(candidate)
                    do {
                        let accepted = try TrackingToken.verify(candidate, secret: secret)
                        Issue.record("\(candidate) verified as \(accepted)")
                    } catch {
                        #expect(error == (shaped ? .badSignature : .malformed), "\(candidate)")
                    }
                }
            }
        }
    }

    /// The grammar of docs/http-and-tracking.md: `v1|v2`, three base64url parts around a decimal one.
    static func isTokenShaped(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "v1" || parts[0] == "v2" else { return false }
        let base64 = [parts[1], parts[2], parts[4]].allSatisfy { !$0.isEmpty && $0.allSatisfy(alphabet.contains) }
        return base64 && !parts[3].isEmpty && parts[3].allSatisfy { ("0"..."9").contains($0) }
    }

    /// Links sent before v2 keep working until they expire.
    @Test func v1LinksStillVerify() throws {
        let text = v1Token(user: "driver-7", trip: "trip/42 é", seconds: 3600)
        #expect(try TrackingToken.verify(text, secret: secret) == token)
    }

    /// `v1\nu\na\nb\n60` is the v1 message of (u, a⏎b) and of (u⏎a, b). Only the split whose user has no control
    /// character, the only kind the topics carry, is accepted; a v2 token gives the two different MACs.
    @Test func idsWithLineBreaksCannotCollide() throws {
        let genuine = v1Token(user: "u", trip: "a\nb", seconds: 60)
        #expect(try TrackingToken.verify(genuine, secret: secret).trip == "a\nb")
        let mac = genuine.split(separator: ".")[4]
        let moved = "v1.\(Base64URL.encode(Array("u\na".utf8))).\(Base64URL.encode(Array("b".utf8))).60.\(mac)"
        #expect(throws: TrackingToken.Failure.badSignature) { try TrackingToken.verify(moved, secret: secret) }

        let first = TrackingToken(user: "u", trip: "a\nb", expiresAfterSeconds: 60).encoded(secret: secret)
        let second = TrackingToken(user: "u\na", trip: "b", expiresAfterSeconds: 60).encoded(secret: secret)
        #expect(first.split(separator: ".")[4] != second.split(separator: ".")[4])
        #expect(try TrackingToken.verify(second, secret: secret).user == "u\na")
        let swapped = second.split(separator: ".").dropLast().joined(separator: ".") + "." + first.split(separator: ".")[4]
        #expect(throws: TrackingToken.Failure.badSignature) { try TrackingToken.verify(swapped, secret: secret) }
    }

    @Test(arguments: [
        "", "v1", "v1.a.b.c", "v3.ZHJpdmVyLTc.dHJpcA.60.AAAA", "v1..dHJpcA.60.AAAA", "v2.ZHJpdmVyLTc.dHJpcA.-1.AAAA",
        "v2.ZHJpdmVyLTc.dHJpcA.60.AA=A", "v2.ZHJpdmVyLTc.dHJpcA.+60.AAAA", "v2.ZHJpdmVyLTc.dHJpcA.60.AAAA.x",
        "v2.ZHJpdmVyLTc.dHJpcA.60.", "v2.ZHJpdmVyLTc.dHJp cA.60.AAAA",
    ])
    func tokensOfAnotherShapeAreMalformed(_ text: String) {
        #expect(throws: TrackingToken.Failure.malformed) { try TrackingToken.verify(text, secret: secret) }
    }

    @Test(arguments: [
        "v2.ZHJpdmVyLTc.dHJpcA.60.AAAA", "v2.ZHJpdmVyLTc.dHJpcA.060.AAAA", "v2.ZHJpdmVyLTc.dHJpcA.99999999999999999999.AAAA",
        "v1.__8.dHJpcA.60.AAAA", "v1.ZHJpdmVyLTc.dHJpcA.60.AAAA", "v2.ZHJpdmVyLTc.dHJpcA.60.AAAB",
    ])
    func tokensOfTheRightShapeWithAWrongMACAreBadSignatures(_ text: String) {
        #expect(throws: TrackingToken.Failure.badSignature) { try TrackingToken.verify(text, secret: secret) }
    }

    /// Signed with the secret, but naming nothing a token can name (a minter's mistake): malformed.
    @Test(arguments: ["060", "99999999999"])
    func signedNonsenseIsMalformed(_ seconds: String) {
        let signed = "v2.ZHJpdmVyLTc.dHJpcA.\(seconds)"
        let text = signed + "." + Base64URL.encode(HMACSHA256.authenticate(Array(signed.utf8), key: secret))
        #expect(throws: TrackingToken.Failure.malformed) { try TrackingToken.verify(text, secret: secret) }
    }

    @Test func overlongTokensAreRefusedUnread() {
        let long = "v2." + String(repeating: "A", count: TrackingToken.maximumLength) + ".dHJpcA.60.AAAA"
        #expect(throws: TrackingToken.Failure.malformed) { try TrackingToken.verify(long, secret: secret) }
    }
}
