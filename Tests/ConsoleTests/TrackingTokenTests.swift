import Testing

@testable import Console

@Suite struct TrackingTokenTests {
    let secret = Array("a secret of at least sixteen bytes".utf8)
    let token = TrackingToken(user: "driver-7", trip: "trip/42 é", expiresAfterSeconds: 3600)

    @Test func roundTrips() throws {
        let text = token.encoded(secret: secret)
        #expect(try TrackingToken.verify(text, secret: secret) == token)
        #expect(text.allSatisfy { $0.isLetter || $0.isNumber || "-_.".contains($0) })
    }

    /// The documented construction, which a notification service reproduces in a few lines of Python.
    @Test func macIsTheHMACOfTheDocumentedMessage() {
        let text = token.encoded(secret: secret)
        let mac = HMACSHA256.authenticate(Array("v1\ndriver-7\ntrip/42 é\n3600".utf8), key: secret)
        #expect(text.hasSuffix("." + Base64URL.encode(mac)))
        #expect(text.hasPrefix("v1.ZHJpdmVyLTc."))
    }

    @Test func anyChangedPartIsRefused() {
        let parts = token.encoded(secret: secret).split(separator: ".").map(String.init)
        var tampered: [[String]] = []
        tampered.append([parts[0], Base64URL.encode(Array("driver-8".utf8)), parts[2], parts[3], parts[4]])
        tampered.append([parts[0], parts[1], Base64URL.encode(Array("trip/43 é".utf8)), parts[3], parts[4]])
        tampered.append([parts[0], parts[1], parts[2], "360000", parts[4]])
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

    @Test(arguments: [
        "", "v1", "v1.a.b.c", "v2.ZHJpdmVyLTc.dHJpcA.60.AAAA", "v1..dHJpcA.60.AAAA", "v1.ZHJpdmVyLTc.dHJpcA.-1.AAAA",
        "v1.ZHJpdmVyLTc.dHJpcA.060.AAAA", "v1.ZHJpdmVyLTc.dHJpcA.99999999999.AAAA", "v1.ZHJpdmVyLTc.dHJpcA.60.AA=A",
        "v1.ZHJpdmVyLTc.dHJpcA.+60.AAAA", "v1.ZHJpdmVyLTc.dHJpcA.60.AAAA.x", "v1.__8.dHJpcA.60.AAAA",
    ])
    func malformedTokensAreRefused(_ text: String) {
        #expect(throws: TrackingToken.Failure.malformed) { try TrackingToken.verify(text, secret: secret) }
    }

    @Test func overlongTokensAreRefusedUnread() {
        let long = "v1." + String(repeating: "A", count: TrackingToken.maximumLength) + ".dHJpcA.60.AAAA"
        #expect(throws: TrackingToken.Failure.malformed) { try TrackingToken.verify(long, secret: secret) }
    }
}
