@testable import Codec
import Simulation
import Testing

/// `JSONReader.readShortNumber`, which reads a number's runs of digits a word at a time, against
/// `readNumberByBytes`: the same number and the same end wherever it answers, and it answers for the
/// numbers fixes carry.
@Suite struct ShortNumberTests {
    /// Both readings of the number that starts `text`; nil where it fails.
    static func bothWays(_ text: [UInt8]) -> (short: JSONNumber?, bytes: JSONNumber?) {
        text.withUnsafeBytes { buffer in
            var short = JSONReader(buffer), bytes = JSONReader(buffer)
            let read = try? bytes.readNumberByBytes()
            return (short.readShortNumber(), read)
        }
    }

    /// What follows a number in a record, long enough that the reading is not near the buffer's end.
    static let after = Array(#","speed":4.5}"#.utf8)

    @Test(arguments: ["41.1716688", "-8.7032149", "14", "0", "-0", "0.5", "99999999", "12345678.87654321", "-0.00000001",
                      "180.0000000", "7.1", "1234567.1234567"])
    func readsTheNumbersOfFixesAsTheBytewiseReadingDoes(_ number: String) throws {
        let (short, bytes) = Self.bothWays(Array(number.utf8) + Self.after)
        #expect(short != nil, "\(number) is short")
        #expect(short == bytes, "\(number)")
        #expect(short?.end == number.utf8.count)
    }

    @Test(arguments: ["1e5", "1E-5", "1.5e3", "123456789", "1.123456789", "01", "-", "-x", ".5", "1.", "1.e5",
                      "-01.5", "+1"])
    func leavesOtherNumbersToTheBytewiseReading(_ number: String) {
        #expect(Self.bothWays(Array(number.utf8) + Self.after).short == nil, "\(number)")
    }

    @Test func declinesNearTheBufferEnd() {
        for text in ["1", "41.1716688", "12345678"] { #expect(Self.bothWays(Array(text.utf8)).short == nil, "\(text)") }
    }

    /// Any byte of numbers in a record changed to any value: the word-at-a-time reading declines,
    /// or reads the number the bytewise reading reads.
    @Test func anyByteChangedEitherDeclinesOrAgrees() {
        var agreed = 0
        for number in ["41.1716688", "-8.7032149", "14", "12345678.12345678", "0.05"] {
            let text = Array(number.utf8) + Self.after
            for position in text.indices {
                for value in 0...255 {
                    var changed = text
                    changed[position] = UInt8(value)
                    let (short, bytes) = Self.bothWays(changed)
                    guard let short else { continue }
                    #expect(short == bytes, "\(String(decoding: changed, as: UTF8.self))")
                    agreed += 1
                }
            }
        }
        #expect(agreed > 1_000)
    }

    @Test func randomDecimalsAgree() {
        var random = SeededRandom(seed: 5)
        for _ in 0..<20_000 {
            let integer = String(Int.random(in: 0...99_999_999, using: &random))
            let decimals = Int.random(in: 0...8, using: &random)
            let fraction = String((0..<decimals).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
            let number = (Bool.random(using: &random) ? "-" : "") + integer + (decimals > 0 ? "." + fraction : "")
            let (short, bytes) = Self.bothWays(Array(number.utf8) + Self.after)
            #expect(short != nil && short == bytes, "\(number)")
        }
    }
}
