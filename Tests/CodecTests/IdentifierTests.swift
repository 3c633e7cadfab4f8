import Codec
import Domain
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
}

