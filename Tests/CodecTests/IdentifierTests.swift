import Codec
import Domain
import Simulation
import Testing

/// `userId` and `deviceId` may hold any text but control characters (U+0000–U+001F, U+007F,
/// U+0080–U+009F): `invalid_identifier`, naming the character and where it is.
@Suite("Identifiers")
struct IdentifierTests {
    static func fixJSON(userId: String, deviceId: String? = nil) -> String {
        let device = deviceId.map { #","deviceId":"\#($0)""# } ?? ""
        return #"{"userId":"\#(userId)"\#(device),"createdAt":"2013-07-01T00:00:53Z","latitude":1,"longitude":2}"#
    }

    static func commandJSON(userId: String) -> String {
        #"{"type":"cancel","userId":"\#(userId)","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t"}}"#
    }

    @Test func controlCharactersInAUserIdAreRejectedWithCharacterAndPosition() {
        expectRejection(.invalidIdentifier, "userId has control character U+0000 at position 0 (counting characters from 0)") {
            () throws(DecodeError) in try fix(Self.fixJSON(userId: #"\u0000partition-checkpoint"#))
        }
        expectRejection(.invalidIdentifier, "userId has control character U+001F at position 2") {
            () throws(DecodeError) in try fix(Self.fixJSON(userId: #"ab\u001fc"#))
        }
        expectRejection(.invalidIdentifier, "userId has control character U+000A at position 4") {
            () throws(DecodeError) in try fix(Self.fixJSON(userId: #"user\n"#))
        }
        // DEL and C1 controls may come unescaped: JSON only insists on escaping U+0000–U+001F.
        expectRejection(.invalidIdentifier, "userId has control character U+007F at position 1") {
            () throws(DecodeError) in try fix(Self.fixJSON(userId: "u\u{7F}"))
        }
        // Positions count characters, not bytes: "é" is two bytes, one character.
        expectRejection(.invalidIdentifier, "userId has control character U+0085 at position 2") {
            () throws(DecodeError) in try fix(Self.fixJSON(userId: "é\u{E9}\u{85}x"))
        }
        expectRejection(.invalidIdentifier, "userId has control character U+009B at position 1") {
            () throws(DecodeError) in try fix(Self.fixJSON(userId: #"u\u009b[31m"#))
        }
        expectRejection(
            .invalidIdentifier,
            "identifiers may not hold U+0000–U+001F, U+007F or U+0080–U+009F"
        ) { () throws(DecodeError) in try fix(Self.fixJSON(userId: #"\t"#)) }
    }

    @Test func everyCharacterUpToU00A0IsJudgedByItsCategory() throws {
        for scalar in UInt32(0)...0xA0 {
            let hex = String(scalar, radix: 16)
            let escaped = #"\u"# + String(repeating: "0", count: 4 - hex.count) + hex
            let isControl = scalar < 0x20 || (0x7F...0x9F).contains(scalar)
            let result = Result { () throws(DecodeError) in try fix(Self.fixJSON(userId: "id" + escaped)) }
            switch result {
            case .success(let f):
                #expect(!isControl, "U+\(hex) accepted")
                #expect(f.userId.unicodeScalars.last?.value == scalar)
            case .failure(let error):
                #expect(isControl && error.reason == .invalidIdentifier, "U+\(hex): \(error)")
            }
        }
    }

    @Test func otherTextIsWelcome() throws {
        // No-break space, zero-width joiner in an emoji sequence, bidi mark, CJK, astral plane.
        for id in ["a\u{A0}b", "👩\u{200D}💻", "\u{200F}مستخدم", "用户-42", "𝔘𝔰𝔢𝔯", " padded "] {
            #expect(try fix(Self.fixJSON(userId: id)).userId == id)
            #expect(try command(Self.commandJSON(userId: id)).userId == id)
        }
    }

    @Test func deviceIdGetsTheSameTreatment() throws {
        expectRejection(.invalidIdentifier, "deviceId has control character U+0000 at position 6") {
            () throws(DecodeError) in try fix(Self.fixJSON(userId: "u1", deviceId: #"device\u0000"#))
        }
        expectRejection(.invalidIdentifier, "deviceId has control character U+0090 at position 0") {
            () throws(DecodeError) in try fix(Self.fixJSON(userId: "u1", deviceId: "\u{90}"))
        }
        #expect(try fix(Self.fixJSON(userId: "u1", deviceId: "iPhone 15 — Ana")).deviceId == "iPhone 15 — Ana")
    }

    @Test func tripCommandUserIds() {
        expectRejection(.invalidIdentifier, "userId has control character U+0001 at position 1") {
            () throws(DecodeError) in try command(Self.commandJSON(userId: #"x\u0001u1"#))
        }
        expectRejection(.invalidIdentifier, "userId has control character U+0000 at position 0") {
            () throws(DecodeError) in try command(Self.commandJSON(userId: #"\u0000partition-checkpoint"#))
        }
        expectRejection(.emptyString, "userId is empty") { () throws(DecodeError) in
            try command(Self.commandJSON(userId: ""))
        }
        expectRejection(.stringTooLong, "userId longer than 256 bytes (257)") { () throws(DecodeError) in
            try command(Self.commandJSON(userId: String(repeating: "x", count: 257)))
        }
        // The limit counts UTF-8 bytes after unescaping: 128 × "é" is 256 bytes, one more is too many.
        #expect(throws: Never.self) {
            try command(Self.commandJSON(userId: String(repeating: #"\u00e9"#, count: 128)))
        }
        expectRejection(.stringTooLong, "userId longer than 256 bytes (258)") { () throws(DecodeError) in
            try command(Self.commandJSON(userId: String(repeating: "é", count: 129)))
        }
    }

    /// The scan (8 bytes at a time over plain ASCII) agrees with a reference over the scalars, for
    /// control characters anywhere, after long ASCII runs and after multi-byte characters.
    @Test func scanAgreesWithAReferenceOnRandomText() {
        let alphabet: [Unicode.Scalar] = ["a", "Z", "0", "-", " ", "~", "\u{7F}", "\u{0}", "\u{1F}", "\u{9}", "\u{80}",
                                          "\u{9F}", "\u{A0}", "é", "\u{C2A0}", "€", "😀", "\u{0100}", "\u{FEFF}"]
        var rng = SeededRandom(seed: 0x1d_e47)
        var found = 0
        for _ in 0..<20_000 {
            var text = String.UnicodeScalarView()
            let length = Int.random(in: 0...40, using: &rng)
            for _ in 0..<length {
                // Mostly plain ASCII, so that long runs take the 8-byte path.
                let scalar = Int.random(in: 0..<10, using: &rng) < 8
                    ? Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &rng))
                    : alphabet.randomElement(using: &rng)!
                text.append(scalar)
            }
            let scalars = Array(text)
            let expected = scalars.firstIndex { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
                .map { (scalar: scalars[$0].value, position: $0) }
            let utf8 = Array(String(text).utf8)
            let actual = utf8.withUnsafeBytes { Identifier.controlCharacter(in: $0) }
            #expect(actual?.scalar == expected?.scalar && actual?.position == expected?.position, "\(scalars)")
            if expected != nil { found += 1 }
        }
        #expect(found > 5_000 && found < 19_000)
        expectRejection(.invalidIdentifier, "userId has control character U+007F at position 17") {
            () throws(DecodeError) in try fix(Self.fixJSON(userId: "abcdefgh-ijklmnop\u{7F}"))
        }
        expectRejection(.invalidIdentifier, "userId has control character U+0085 at position 9") {
            () throws(DecodeError) in try fix(Self.fixJSON(userId: "abcdefghé\u{85}"))
        }
    }
}
