import Codec
import Domain
import Foundation
import Testing
import Simulation

func written(_ body: (inout JSONWriter) -> Void) -> String {
    var bytes: [UInt8] = []
    JSONWriter.append(to: &bytes, body)
    return String(decoding: bytes, as: UTF8.self)
}

@Suite("JSONWriter")
struct WriterTests {
    @Test(
        arguments: [
            (411_407_460, "41.140746"), (-86_102_910, "-8.610291"), (0, "0"), (1, "0.0000001"), (-1, "-0.0000001"),
            (1_800_000_000, "180"), (-900_000_000, "-90"), (Int32.min, "-214.7483648"), (10_000_000, "1"),
            (15_000_000, "1.5"),
        ] as [(Int32, String)])
    func coordinates(e7: Int32, text: String) {
        #expect(written { $0.coordinateE7(e7) } == text)
    }

    /// Every decimals count the writer is used with and beyond, on random values and on edges
    /// (zeros inside and at the end of the fraction), against the definition: integer part, point,
    /// the zero-padded fraction without its trailing zeros.
    @Test func fixedPointMatchesItsDefinition() {
        var random = SeededRandom(seed: 11)
        for decimals in 1...9 {
            var unit: Int64 = 1
            for _ in 0..<decimals { unit *= 10 }
            let edges: [Int64] = [0, 1, unit - 1, unit, unit + 1, 10, 100, unit / 10, 1_800_000_000, Int64(Int32.max)]
            for value in edges + (0..<2_000).map({ _ in Int64.random(in: -4_000_000_000...4_000_000_000, using: &random) }) {
                let magnitude = value.magnitude, fraction = magnitude % UInt64(unit)
                var expected = (value < 0 ? "-" : "") + String(magnitude / UInt64(unit))
                if fraction != 0 {
                    var digits = String(fraction)
                    digits = String(repeating: "0", count: decimals - digits.count) + digits
                    while digits.hasSuffix("0") { digits.removeLast() }
                    expected += "." + digits
                }
                #expect(written { $0.fixedPoint(value, decimals: decimals) } == expected, "\(value), \(decimals)")
            }
        }
    }

    /// A float prints as `description` does (its trailing `.0` dropped), through the short-decimal
    /// path or not: every value of up to four decimals below 100, random floats across magnitudes
    /// (most with no short decimal form), negatives, and the edges of the path's range.
    @Test func floatsPrintAsTheirDescription() {
        func expected(_ value: Float) -> String {
            let text = value.description
            return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
        }
        var values: [Float] = [0.001, 0.0009999, 999.9999, 1000.5, 0.1, 0.25, 4.7, 16.55, -3.2, -0.001, 1e-5, 1e20]
        for n in 1..<1_000_000 { values.append(Float(n) / 10_000) }
        var random = SeededRandom(seed: 12)
        for _ in 0..<200_000 {
            let exponent = Float.random(in: -12...12, using: &random)
            values.append(Float.random(in: 1..<10, using: &random) * pow(10, exponent) * (Bool.random(using: &random) ? 1 : -1))
        }
        var mismatches: [String] = []
        for value in values where value.isFinite {
            let text = written { $0.float(value) }
            if text != expected(value), mismatches.count < 5 { mismatches.append("\(value): \(text)") }
        }
        #expect(mismatches.isEmpty)
    }

    @Test(
        arguments: [
            (480, "8"), (510, "8.5"), (500, "8.33"), (0, "0"), (1, "0.02"), (59, "0.98"), (-90, "-1.5"), (3, "0.05"),
            (86_400, "1440"),
        ] as [(Int64, String)])
    func minutes(seconds: Int64, text: String) {
        #expect(written { $0.minutes(seconds: seconds) } == text)
    }

    @Test func numbers() {
        #expect(written { $0.int(Int64.min) } == "-9223372036854775808")
        #expect(written { $0.int(Int64(0)) } == "0")
        #expect(written { $0.double(100) } == "100")
        #expect(written { $0.double(55.5) } == "55.5")
        #expect(written { $0.float(4.7) } == "4.7")
        #expect(written { $0.timestamp(1_372_636_853_000) } == #""2013-07-01T00:00:53.000Z""#)
        #expect(
            written { $0.eventID(EventID(high: 0x0123_4567_89ab_cdef, low: 0xfeed_beef)) }
                == #""0123456789abcdeffeedbeef""#)
        var random = SeededRandom(seed: 13)
        for _ in 0..<1_000 {
            let id = EventID(high: UInt64.random(in: 0...UInt64.max, using: &random),
                             low: UInt32.random(in: 0...UInt32.max, using: &random))
            #expect(written { $0.eventID(id) } == "\"" + id.hexString + "\"")
        }
    }

    @Test func escaping() {
        #expect(written { $0.string("a\"b\\c\n\u{1}\u{1f}é😀/") } == #""a\"b\\c\n\u0001\u001fé😀/""#)
        // Long strings take the other path; many pieces overflow the scratch area.
        let long = String(repeating: "ab\u{0}\"é", count: 100)
        let expected = "\"" + String(repeating: #"ab\u0000\"é"#, count: 100) + "\""
        #expect(written { $0.string(long) } == expected)
        #expect(written { w in for _ in 0..<100 { w.string(long) } } == String(repeating: expected, count: 100))
        #expect(
            written { w in
                for i in 0..<1000 {
                    w.int(Int64(i))
                    w.byte(44)
                }
            } == (0..<1000).map { "\($0)," }.joined())
    }

    /// Pieces that end exactly at, or run past, the scratch area's end: literal keys after a flush,
    /// a spliced value shorter than the copy threshold, and one longer that goes to the output as it is.
    @Test func piecesAcrossTheScratchAreaStayInOrder() {
        let short = RawJSON(bytes: Array(String(repeating: "7", count: 300).utf8))
        let long = RawJSON(bytes: Array(String(repeating: "8", count: 3_000).utf8))
        var expected = ""
        let text = written { w in
            for i in 0..<400 {
                w.raw("{\"k\":")
                expected += "{\"k\":"
                if i % 37 == 0 {
                    w.raw(short)
                    expected += String(repeating: "7", count: 300)
                }
                if i % 101 == 0 {
                    w.raw(long)
                    expected += String(repeating: "8", count: 3_000)
                }
                w.byte(UInt8(ascii: "}"))
                expected += "}"
            }
        }
        #expect(text == expected)
    }

    @Test func standaloneWriterAppendsToTheBuffer() {
        var buffer = Array("x".utf8)
        var w = JSONWriter(taking: &buffer)
        #expect(buffer.isEmpty)
        for i in 0..<300 { w.fixedPoint(Int64(i), decimals: 1) }
        w.finish(into: &buffer)
        #expect(
            String(decoding: buffer, as: UTF8.self) == "x"
                + (0..<300).map { i in i % 10 == 0 ? "\(i / 10)" : "\(i / 10).\(i % 10)" }.joined())
    }

    @Test func doublesAndFloats() {
        #expect(written { $0.double(-0.0) } == "-0")
        #expect(written { $0.double(1e15) } == "1000000000000000")
        #expect(written { $0.double(1.5e300) } == "1.5e+300")
        #expect(written { $0.double(123_456_789_012_345) } == "123456789012345")
        #expect(written { $0.double(0.1) } == "0.1")
        #expect(written { $0.float(1e-5) } == "1e-05")
        #expect(written { $0.float(16_777_216) } == "16777216")
    }

    /// Random strings (all of Unicode, control characters included) survive write → read, and
    /// Foundation reads the same string.
    @Test func stringRoundTrip() throws {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<5_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...20, using: &rng) {
                let pick = Int.random(in: 0..<4, using: &rng)
                let value: UInt32 =
                    switch pick {
                    case 0: UInt32.random(in: 0..<0x80, using: &rng)
                    case 1: UInt32.random(in: 0x80..<0xD800, using: &rng)
                    case 2: UInt32.random(in: 0xE000..<0x10000, using: &rng)
                    default: UInt32.random(in: 0x10000...0x10FFFF, using: &rng)
                    }
                scalars.append(Unicode.Scalar(value)!)
            }
            let original = String(scalars)
            let json = written { $0.string(original) }
            let bytes = Array(json.utf8)
            let back = try bytes.withUnsafeBytes { buffer in
                var reader = JSONReader(buffer)
                let s = reader.string(try reader.readString())
                try reader.finish()
                return s
            }
            #expect(back == original)
            let foundation =
                try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) as? String
            // Foundation drops U+FEFF (a byte order mark) even inside a string; skip those.
            if !original.unicodeScalars.contains("\u{feff}") { #expect(foundation == original) }
        }
    }

    @Test func base64RoundTrip() {
        var rng = SeededRandom(seed: 7)
        for n in 0..<64 {
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            var out: [UInt8] = []
            Base64.encode(bytes, into: &out)
            #expect(String(decoding: out, as: UTF8.self) == Data(bytes).base64EncodedString())
            #expect(out.withUnsafeBytes { Base64.decode($0) } == bytes)
        }
    }
}
