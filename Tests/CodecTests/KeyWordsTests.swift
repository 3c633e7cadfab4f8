import Codec
import Domain
import Testing

/// Keys compared a word at a time (`KeyWords`) agree with a byte-by-byte comparison, wherever the
/// key lies in the buffer.
@Suite struct KeyWordsTests {
    /// The first key of `json`'s top-level object, as words (nil: not comparable by words).
    func firstKeyWords(_ json: String) throws -> KeyWords? {
        try Array(json.utf8).withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            var cursor = try reader.beginObject()
            let key = try #require(try reader.nextKey(&cursor))
            return reader.keyWords(key)
        }
    }

    static let names: [StaticString] = ["a", "speed", "userId", "latitude", "createdAt", "longitude",
                                        "sixteen_bytes_ok"]

    @Test(arguments: names) func aKeyEqualsItsNameAtTheBufferEndAndFarFromIt(_ name: StaticString) throws {
        let text = "\(name)"
        // Last in a short object (within 8 bytes of the end), and first of a long one.
        #expect(try firstKeyWords("{\"\(text)\":1}") == KeyWords(name))
        #expect(try firstKeyWords("{\"\(text)\":1,\"padding\":\"\(String(repeating: "x", count: 40))\"}") == KeyWords(name))
    }

    @Test(arguments: names) func aKeyDifferingInAnyOneByteDoesNotEqualIt(_ name: StaticString) throws {
        let bytes = Array("\(name)".utf8)
        for position in bytes.indices {
            var changed = bytes
            changed[position] ^= 0x01
            let text = String(decoding: changed, as: UTF8.self)
            #expect(try firstKeyWords("{\"\(text)\":1}") != KeyWords(name), "\(text)")
            #expect(try firstKeyWords("{\"\(text)\":1,\"padding\":\"xxxxxxxxxxxx\"}") != KeyWords(name), "\(text)")
        }
        // A prefix or an extension of the key is another key.
        #expect(try firstKeyWords("{\"\(String(decoding: bytes.dropLast(), as: UTF8.self))x\":1}") != KeyWords(name)
                || bytes.last == UInt8(ascii: "x"))
        if bytes.count < 16 { #expect(try firstKeyWords("{\"\("\(name)")z\":1,\"p\":2}") != KeyWords(name)) }
    }

    @Test func escapedAndLongKeysAreLeftToTheByteComparison() throws {
        #expect(try firstKeyWords(#"{"sp\u0065ed":1}"#) == nil)
        #expect(try firstKeyWords(#"{"seventeen_bytes_x":1}"#) == nil)
        #expect(try firstKeyWords(#"{"":1}"#) == nil)
    }

    @Test func aFixWithAKnownKeyOneByteOffIsMissingThatField() throws {
        #expect(throws: DecodeError.self) {
            try FixDecoder.decode(Array(#"{"userId":"u","createdAt":"2026-01-05T08:00:00Z","latitudf":1,"longitude":2}"#.utf8))
        }
        let fix = try FixDecoder.decode(Array(#"{"userId":"u","createdAt":"2026-01-05T08:00:00Z","latitude":1,"longitude":2,"speec":3}"#.utf8))
        #expect(fix.speed.isNaN && fix.position.latitudeE7 == 10_000_000)
    }
}
