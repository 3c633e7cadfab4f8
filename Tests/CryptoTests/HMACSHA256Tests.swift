import Testing

@testable import Crypto

/// libcrypto's HMAC-SHA256 through our wrapper: RFC 4231's vectors, empty inputs, and the constant-time compare.
@Suite(.timeLimit(.minutes(5))) struct HMACSHA256Tests {
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    /// RFC 4231 test cases 1, 2, 3, 4, 6 and 7 (5 truncates the output): short keys, a key shorter than the
    /// output, keys longer than a block (hashed first), data longer than a block.
    @Test(arguments: [
        ("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265",
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        ("4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", String(repeating: "dd", count: 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        ("0102030405060708090a0b0c0d0e0f10111213141516171819", String(repeating: "cd", count: 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        (String(repeating: "aa", count: 131),
         "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        (String(repeating: "aa", count: 131),
         "5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a65206b657920"
            + "616e642061206c6172676572207468616e20626c6f636b2d73697a6520646174612e20546865206b6579206e656564732074"
            + "6f20626520686173686564206265666f7265206265696e6720757365642062792074686520484d414320616c676f72697468"
            + "6d2e",
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ])
    func matchesRFC4231(key: String, data: String, expected: String) {
        #expect(Self.hex(HMACSHA256.authenticate(Self.bytes(data), key: Self.bytes(key))) == expected)
    }

    /// Empty arrays may lend no address; an empty key or message is still the HMAC of empty bytes (values from
    /// Python's `hmac.new(b"", b"", "sha256")` and `hmac.new(b"key", b"", "sha256")`).
    @Test func emptyKeyAndMessage() {
        #expect(Self.hex(HMACSHA256.authenticate([], key: []))
            == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
        #expect(Self.hex(HMACSHA256.authenticate([], key: Array("key".utf8)))
            == "5d5d139563c95b5967b9bd9a8c9b233a9dedb45072794cd232dc1b74832607d0")
        // A second call with an empty key must not reuse the previous call's key.
        #expect(HMACSHA256.authenticate([1], key: []) != HMACSHA256.authenticate([1], key: Array("key".utf8)))
    }

    @Test func constantTimeEqual() {
        #expect(HMACSHA256.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(HMACSHA256.constantTimeEqual([], []))
        #expect(!HMACSHA256.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!HMACSHA256.constantTimeEqual([9, 2, 3], [1, 2, 3]))
        #expect(!HMACSHA256.constantTimeEqual([1, 2, 3], [1, 2]))
        #expect(!HMACSHA256.constantTimeEqual([], [0]))
    }
}
