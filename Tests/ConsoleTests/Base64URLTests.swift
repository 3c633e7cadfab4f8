import Testing

@testable import Console

@Suite struct Base64URLTests {
    @Test func roundTripsAndRefusesOtherText() {
        for count in 0..<12 {
            let data = (0..<count).map { UInt8(truncatingIfNeeded: $0 * 37 + 250) }
            let text = Base64URL.encode(data)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == data)
        }
        #expect(Base64URL.encode(Array("hello?>".utf8)) == "aGVsbG8_Pg")
        #expect(Base64URL.decode("aGVsbG8=") == nil)  // padding
        #expect(Base64URL.decode("a") == nil)  // no encoding is 1 mod 4 long
        #expect(Base64URL.decode("aGVsbG9") == nil)  // low bits set: not the canonical encoding
        #expect(Base64URL.decode("a+b/") == nil)
    }
}
