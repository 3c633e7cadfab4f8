import Codec
import Domain
import Testing

/// `JSONValue`: a whole value read by `JSONReader`, as the console reads the output topics.
@Suite(.timeLimit(.minutes(5))) struct JSONValueTests {
    func parse(_ text: String) throws(DecodeError) -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test func readsEveryKindOfValue() throws {
        let value = try parse(#" {"s":"a\u00e9\n","n":-1.5e2,"i":7,"t":true,"f":false,"z":null,"a":[1,[2],{}],"o":{"k":"v"}} "#)
        #expect(value["s"] == .string("aé\n"))
        #expect(value["n"]?.double == -150)
        #expect(value["i"]?.double == 7)
        #expect(value["t"]?.bool == true && value["f"]?.bool == false)
        #expect(value["z"] == .null)
        #expect(value["a"] == .array([.number(1), .array([.number(2)]), .object([:])]))
        #expect(value["o"]?["k"]?.string == "v")
        #expect(value["missing"] == nil && value["s"]?["k"] == nil && value["a"]?.string == nil)
        #expect(try parse("\"top\"") == .string("top"))
    }

    @Test func aMemberNamedTwiceKeepsTheLast() throws {
        #expect(try parse(#"{"a":1,"a":2}"#)["a"]?.double == 2)
    }

    @Test func acceptsWhatTheReaderAccepts() throws {
        for text in ReaderTests.valid {
            #expect(throws: Never.self, "\(text)") { try parse(text) }
        }
    }

    @Test func refusesWhatTheReaderRefuses() {
        for text in ReaderTests.invalid + ReaderTests.invalidButFoundationAccepts {
            #expect(throws: DecodeError.self, "\(text)") { try parse(text) }
        }
        #expect(throws: DecodeError.self) { try JSONValue.parse([0x22, 0xff, 0x22]) }  // not UTF-8
    }

    @Test func syntaxErrorsSayWhereAsTheReaderDoes() {
        #expect(throws: DecodeError(.invalidJSON, "invalid JSON at byte 6: unexpected '}', expected a value")) {
            try parse(#"{"a": }"#)
        }
        #expect(throws: DecodeError(.invalidJSON, "invalid JSON at byte 4: trailing data after the JSON value")) {
            try parse("[1] x")
        }
    }

    @Test func nestingIsBounded() throws {
        let depth = JSONReader.maxDepth
        _ = try parse(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        let deeper = String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1)
        #expect(throws: DecodeError.self) { try parse(deeper) }
        // Far deeper than the stack would take, if the limit were not checked first.
        #expect(throws: DecodeError.self) { try parse(String(repeating: "{\"a\":", count: 100_000)) }
    }

    @Test func aNumberTooLargeForADoubleIsNotFinite() {
        #expect(throws: DecodeError(.nonFiniteNumber, "number 1e400 is not finite")) { try parse(#"{"a":1e400}"#) }
    }
}
