import Codec
import Domain
import Testing
import Simulation

/// Reads one JSON number and returns it × 10⁷, rounded (nil on overflow).
func e7(_ text: String) throws -> Int64? {
    try Array(text.utf8).withUnsafeBytes { buffer in
        var reader = JSONReader(buffer)
        let n = try reader.readNumber()
        try reader.finish()
        return n.scaledE7
    }
}

func double(_ text: String) throws -> Double {
    try Array(text.utf8).withUnsafeBytes { buffer in
        var reader = JSONReader(buffer)
        let n = try reader.readNumber()
        return reader.double(n)
    }
}

@Suite("Numbers")
struct NumberTests {
    @Test(
        arguments: [
            ("41.140746", 411_407_460), ("-8.610291", -86_102_910), ("0", 0), ("-0", 0), ("-0.0", 0),
            ("0.0000001", 1), ("1e-7", 1), ("-1E-7", -1), ("90", 900_000_000), ("180.0000000", 1_800_000_000),
            ("1.5e1", 150_000_000), ("0.15E+2", 150_000_000), ("12345678e-8", 1_234_568),
            // Eighth decimal: ties go away from zero, as Double.rounded() does.
            ("0.00000005", 1), ("-0.00000005", -1), ("0.00000004999999999999999999999", 0),
            ("0.000000050000000000000000000001", 1), ("0.00000014", 1), ("0.00000015", 2), ("-0.00000025", -3),
            // Many digits, beyond the 19 kept.
            ("41.14074649999999999999999999", 411_407_465), ("41.140746449999999999999999999", 411_407_464),
            ("1000000000000000000000e-21", 10_000_000), ("0.00000000000000000000000001", 0),
            ("1e-400", 0), ("0e999999999999", 0), ("123.456e-2", 12_345_600),
        ] as [(String, Int64)])
    func exactE7(text: String, expected: Int64) throws {
        #expect(try e7(text) == expected)
    }

    @Test func overflowIsNil() throws {
        #expect(try e7("1e12") == nil)
        #expect(try e7("-99999999999999999999") == nil)
        #expect(try e7("922337203685.4775807") == 9_223_372_036_854_775_807)
    }

    @Test func agreesWithDoubleRoundingForSevenDecimals() throws {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<20_000 {
            let value = Int64.random(in: -1_800_000_000...1_800_000_000, using: &rng)
            let text =
                "\(value < 0 ? "-" : "")\(value.magnitude / 10_000_000).\(String(value.magnitude % 10_000_000).leftPad(7))"
            #expect(try e7(text) == value, "\(text)")
        }
    }

    @Test func doubles() throws {
        #expect(try double("0.1") == 0.1)
        #expect(try double("-2.5e-3") == -0.0025)
        #expect(try double("1e400") == .infinity)
        #expect(try double("123456789012345678901234567890") == 123456789012345678901234567890.0)
        #expect(try double("2.2250738585072011e-308") == 2.2250738585072011e-308)
        #expect(try double("-0").sign == .minus)
    }

    @Test(arguments: ["01", "1.", ".5", "-", "+1", "1e", "1e+", "0x10", "NaN", "Infinity", "-Infinity", "1.e3", "--1"])
    func rejectsInvalidNumbers(text: String) {
        let ok = (try? Array(text.utf8).withUnsafeBytes { (b) throws -> Void in try JSONReader.validate(b) }) != nil
        #expect(!ok, "\(text) must be invalid JSON")
    }
}

extension String {
    func leftPad(_ n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}
