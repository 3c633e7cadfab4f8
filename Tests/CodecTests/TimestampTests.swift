import Codec
import Domain
import Foundation
import Testing

func parseTimestamp(_ text: String) -> Result<UnixMillis, RFC3339.Failure> {
    Array(text.utf8).withUnsafeBytes { RFC3339.parse($0) }
}

@Suite("RFC 3339")
struct TimestampTests {
    @Test(
        arguments: [
            ("2013-07-01T00:00:53Z", 1_372_636_853_000),
            ("1970-01-01T00:00:00Z", 0),
            ("1970-01-01T00:00:00+01:00", -3_600_000),
            ("2013-07-01T02:00:53+02:00", 1_372_636_853_000),
            ("2013-06-30T19:30:53-04:30", 1_372_636_853_000),
            ("2013-07-01t00:00:53z", 1_372_636_853_000),
            ("2013-07-01T00:00:53.1Z", 1_372_636_853_100),
            ("2013-07-01T00:00:53.12Z", 1_372_636_853_120),
            ("2013-07-01T00:00:53.123456789Z", 1_372_636_853_123),
            ("2013-07-01T00:00:53.9999Z", 1_372_636_853_999),
            ("2024-02-29T12:00:00Z", 1_709_208_000_000),
            ("2000-02-29T00:00:00Z", 951_782_400_000),
            ("2016-12-31T23:59:60Z", 1_483_228_800_000),
            ("2200-12-31T23:59:59.999Z", 7_289_654_399_999),
            ("2026-05-12T14:30:00.000-00:00", 1_778_596_200_000),
        ] as [(String, Int64)])
    func parses(text: String, millis: Int64) throws {
        #expect(try parseTimestamp(text).get() == millis, "\(text)")
    }

    @Test(arguments: [
        "2013-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2013-13-01T00:00:00Z",
        "2013-00-01T00:00:00Z", "2013-04-31T00:00:00Z", "2013-07-01T24:00:00Z", "2013-07-01T00:60:00Z",
        "2013-07-01T00:00:61Z", "2013-07-01T00:00:53", "2013-07-01 00:00:53Z", "2013-07-01T00:00:53.Z",
        "2013-07-01T00:00:53+0100", "2013-07-01T00:00:53+24:00", "2013-7-01T00:00:53Z", "2013-07-01T00:00:53Zx",
        "13-07-01T00:00:53Z", "", "2013-07-01T00:00:53+01:60",
    ])
    func rejectsInvalid(text: String) {
        guard case .failure(let failure) = parseTimestamp(text) else {
            Issue.record("\(text) must be rejected")
            return
        }
        #expect(failure.reason == .badTimestamp)
    }

    @Test func absurdYears() {
        for text in ["1969-12-31T23:59:59Z", "2201-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"] {
            guard case .failure(let failure) = parseTimestamp(text) else {
                Issue.record("\(text) must be rejected")
                continue
            }
            #expect(failure.reason == .absurdTimestamp, "\(text)")
        }
    }

    @Test func writesUTCWithMilliseconds() {
        #expect(RFC3339.string(1_372_636_853_000) == "2013-07-01T00:00:53.000Z")
        #expect(RFC3339.string(0) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.string(-1) == "1969-12-31T23:59:59.999Z")
        #expect(RFC3339.string(951_782_400_123) == "2000-02-29T00:00:00.123Z")
    }

    /// Every day of 1970…2200 against Foundation's calendar, and write → parse round trips.
    @Test func agreesWithFoundationOverTheWholeRange() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var day = 0
        var date = DateComponents(calendar: calendar, year: 1970, month: 1, day: 1).date!
        while true {
            let c = calendar.dateComponents([.year, .month, .day], from: date)
            guard c.year! <= 2200 else { break }
            let millis = Int64(day) * 86_400_000 + Int64(day % 86_400_000)
            let text = RFC3339.string(millis)
            let expectedPrefix = String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
            #expect(text.hasPrefix(expectedPrefix), "\(text) vs \(expectedPrefix)")
            #expect(try parseTimestamp(text).get() == millis)
            if !text.hasPrefix(expectedPrefix) { break }
            day += 1
            date = calendar.date(byAdding: .day, value: 1, to: date)!
        }
        #expect(day == 84_371)
    }
}
