@testable import Codec
import Domain
import Testing

/// `RFC3339.parseCanonical`, the word-at-a-time reading of `YYYY-MM-DDTHH:MM:SS.mmmZ`, against the
/// byte-by-byte parser that reads every form: same result wherever it answers, and it answers for
/// every canonical text in range.
@Suite("RFC 3339, canonical form")
struct CanonicalTimestampTests {
    static func canonical(_ text: [UInt8]) -> UnixMillis? { text.withUnsafeBytes { RFC3339.parseCanonical($0) } }
    static func byBytes(_ text: [UInt8]) -> UnixMillis? {
        text.withUnsafeBytes { try? RFC3339.parseByBytes($0).get() }
    }

    @Test func theShapesAreThoseOfTheForm() {
        func shape(_ pattern: String) -> RFC3339.Canonical.Shape {
            var shape = RFC3339.Canonical.Shape(digits: 0, separators: 0)
            for (k, byte) in pattern.utf8.enumerated() {
                if byte == UInt8(ascii: "0") { shape.digits |= 0xFF << (8 * k) } else { shape.separators |= UInt64(byte) << (8 * k) }
            }
            return shape
        }
        for (pattern, written) in [("0000-00-", RFC3339.Canonical.date), ("00T00:00", RFC3339.Canonical.time),
                                   (":00.000Z", RFC3339.Canonical.rest)]
        {
            #expect(shape(pattern).digits == written.digits, "\(pattern)")
            #expect(shape(pattern).separators == written.separators, "\(pattern)")
        }
    }

    @Test func readsEveryCanonicalTextInRangeAsTheBytewiseParserDoes() {
        // Every month's first and last day over the accepted years, at times that use every digit.
        let times: [UnixMillis] = [0, 1, 59_999, 3_599_999, 45_296_789, 86_399_999]
        var checked = 0
        for year in RFC3339.years {
            for month in 1...12 {
                for day in [1, 9, 10, 19, 20, 28, RFC3339.daysInMonth(year: year, month: month)] {
                    let midnight = UnixMillis(RFC3339.daysFromCivil(year: year, month: month, day: day)) * 86_400_000
                    for time in times {
                        let text = Array(RFC3339.string(midnight + time).utf8)
                        #expect(Self.canonical(text) == midnight + time, "\(String(decoding: text, as: UTF8.self))")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 231 * 12 * 7 * 6)
    }

    /// Every byte of canonical texts replaced by each of the 256 values: the word-at-a-time reading
    /// either declines (the bytewise parser then decides) or gives the bytewise parser's result.
    @Test func anyByteChangedEitherDeclinesOrAgrees() {
        let bases = ["2026-01-05T08:00:00.000Z", "2016-12-31T23:59:60.999Z", "2024-02-29T12:34:56.789Z",
                     "1970-01-01T00:00:00.000Z", "2200-12-31T23:59:59.999Z", "2023-02-28T19:09:09.090Z"]
        var declined = 0, agreed = 0
        for base in bases {
            let text = Array(base.utf8)
            #expect(Self.canonical(text) == Self.byBytes(text), "\(base)")
            for position in text.indices {
                for value in 0...255 {
                    var changed = text
                    changed[position] = UInt8(value)
                    guard let millis = Self.canonical(changed) else {
                        declined += 1
                        continue
                    }
                    #expect(millis == Self.byBytes(changed), "\(String(decoding: changed, as: UTF8.self))")
                    agreed += 1
                }
            }
        }
        // Each digit byte takes 10 values, of which some are out of range (months, days, hours...).
        #expect(agreed > bases.count * 100)
        #expect(declined > bases.count * 24 * 200)
    }

    @Test func declinesOtherForms() {
        for text in ["2013-07-01T00:00:53Z", "2013-07-01t00:00:53.000Z", "2013-07-01T00:00:53.000z",
                     "2013-07-01T00:00:53.0000Z", "2013-07-01T00:00:53.000+00:00", "2013-07-01T00:00:53,000Z",
                     "2013-02-30T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "2013-07-01T24:00:00.000Z"]
        {
            #expect(Self.canonical(Array(text.utf8)) == nil, "\(text)")
        }
    }
}
