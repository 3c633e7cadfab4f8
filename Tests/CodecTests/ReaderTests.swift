import Codec
import Domain
import Foundation
import Testing
import Simulation

func validates(_ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { buffer in
        do {
            try JSONReader.validate(buffer)
            return true
        } catch {
            return false
        }
    }
}

func foundationValidates(_ bytes: [UInt8]) -> Bool {
    (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil
}

@Suite("JSONReader")
struct ReaderTests {
    static let valid: [String] = [
        "{}", "[]", "0", "-0", "1.5e+3", "\"\"", "true", "false", "null", " \t\r\n{ } ", #"{"a":[1,2,{"b":null}]}"#,
        #""\u00e9\ud83d\ude00\n\t\"\\\/\b\f\r""#, #"["é","😀","\u0000"]"#, #"{"a":1,"a":2}"#, "[[[[[[[[[[]]]]]]]]]]",
        "-1.0E-10", "123456789012345678901234567890", #"{"":""}"#, "[1,\n2]", "\"\u{7f}\"",
    ]
    static let invalid: [String] = [
        "", " ", "{", "}", "[", "]", "{,}", "[,]", #"{"a" 1}"#, #"{"a":}"#, #"{a:1}"#,
        "{'a':1}", "[1 2]", "01", "1.", ".1", "+1", "1e", "-", "NaN", "Infinity", "tru", "nul", "True", "\"abc",
        "\"a\u{01}b\"", #""\x""#, #""\u12""#, #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, "[1]x", "{} {}",
        "[1]]", #"{"a":1}}"#, "/* c */ {}", "[1,,2]", #"{"a":1 "b":2}"#,
    ]

    @Test func validCorpus() {
        for text in Self.valid {
            let bytes = Array(text.utf8)
            #expect(validates(bytes), "\(text) must be valid")
            #expect(foundationValidates(bytes), "Foundation disagrees on \(text)")
        }
    }

    @Test func invalidCorpus() {
        for text in Self.invalid {
            let bytes = Array(text.utf8)
            #expect(!validates(bytes), "\(text) must be invalid")
            #expect(!foundationValidates(bytes), "Foundation disagrees on \(text)")
        }
    }

    /// RFC 8259 forbids these; Foundation's parser is lenient about them, so we only check ourselves.
    static let invalidButFoundationAccepts: [String] = ["[1,]", #"{"a":1,}"#, "[1, ]", "\u{feff}{}"]

    @Test func strictWhereFoundationIsLenient() {
        for text in Self.invalidButFoundationAccepts {
            #expect(!validates(Array(text.utf8)), "\(text) must be invalid")
        }
        // And the other way: RFC 8259 allows any magnitude; Foundation rejects what overflows Double.
        #expect(validates(Array("1e400".utf8)) && !foundationValidates(Array("1e400".utf8)))
    }

    @Test func invalidUTF8() {
        for bytes: [UInt8] in [
            [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22],
            [0x22, 0xE2, 0x82, 0x22], [0x22, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0xFF],
        ] {
            #expect(!validates(bytes), "\(bytes) must be invalid")
            #expect(!foundationValidates(bytes), "Foundation disagrees on \(bytes)")
        }
        #expect(validates([0x22, 0xF0, 0x9F, 0x98, 0x80, 0x22]))
    }

    @Test func depthLimit() {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(validates(Array(ok.utf8)))
        #expect(!validates(Array(deep.utf8)))
        let deepObject = String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(!validates(Array(deepObject.utf8)))
    }

    /// Random JSON-ish texts built from a small alphabet: our verdict must match Foundation's.
    @Test func agreesWithFoundationOnRandomTexts() {
        let pieces = [
            "{", "}", "[", "]", ",", ":", "\"a\"", "\"\\u00e9\"", "1", "-0.5e2", "true", "null", " ", "\"", "0",
        ]
        var rng = SeededRandom(seed: 2026)
        var agreed = 0
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 1...8, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            let bytes = Array(text.utf8)
            let ours = validates(bytes)
            let trailingComma =
                text.replacingOccurrences(of: " ", with: "").contains(",]")
                || text.replacingOccurrences(of: " ", with: "").contains(",}")
            // Foundation also rejects valid numbers beyond Double's range (-0.5e2111).
            let hugeExponent = text.range(of: #"e[0-9]{3}"#, options: .regularExpression) != nil
            #expect(
                ours == foundationValidates(bytes) || (trailingComma && !ours) || (hugeExponent && ours),
                "disagreement on \(text)")
            if ours { agreed += 1 }
        }
        #expect(agreed > 100)
    }

    @Test func capturesExactSourceBytes() throws {
        let text = #"{"x": {"a" : [1, 2]} , "y":1}"#
        let captured = try Array(text.utf8).withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            var cursor = try reader.beginObject()
            var raw: RawJSON?
            while let key = try reader.nextKey(&cursor) {
                if reader.matches(key, "x") {
                    raw = reader.rawJSON(try reader.captureValue())
                } else {
                    try reader.skipValue()
                }
            }
            try reader.finish()
            return raw
        }
        #expect(captured?.text == #"{"a" : [1, 2]}"#)
    }

    @Test func stringsUnescape() throws {
        let text = #""a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u20ac\ud83d\ude00""#
        let decoded = try Array(text.utf8).withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            return reader.string(try reader.readString())
        }
        #expect(decoded == "a\"b\\c/d\u{8}\u{c}\n\r\tAé€😀")
    }
}
