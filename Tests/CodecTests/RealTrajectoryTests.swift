import Codec
import Domain
import Foundation
import Testing

@Suite("Real trajectories (Porto taxi sample)")
struct RealTrajectoryTests {
    @Test func decodesTheFirst2000Lines() throws {
        let directory = PackagePaths.sharedData.appendingPathComponent("real-trajectories")
        let file = directory.appendingPathComponent("porto-taxi-train-sample.ndjson")
        guard FileManager.default.fileExists(atPath: directory.path) else {
            print("RealTrajectoryTests: skipped, \(directory.path) is absent (shared data sets are not checked in)")
            return
        }
        let data = try Data(contentsOf: file)
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        lines = Array(lines.prefix(2_000))
        #expect(lines.count == 2_000)
        var previous: Fix?
        for line in lines {
            let bytes = Array(line)
            let fix = try FixDecoder.decode(bytes)
            // Independent check: Foundation's parse of the same line.
            let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            #expect(fix.userId == object["userId"] as? String)
            let latitude = try #require(object["latitude"] as? Double)
            let longitude = try #require(object["longitude"] as? Double)
            #expect(fix.position == Coordinate(latitude: latitude, longitude: longitude))
            let created = try #require(object["createdAt"] as? String)
            let date = try #require(ISO8601DateFormatter().date(from: created))
            #expect(fix.createdAt == Int64(date.timeIntervalSince1970 * 1000))
            if let previous, previous.userId == fix.userId, fix.createdAt < previous.createdAt {
                Issue.record("time went backwards for \(fix.userId)")
            }
            previous = fix
        }
        let first = try FixDecoder.decode(Array(lines[0]))
        #expect(first.userId == "20000380" && first.createdAt == 1_372_636_853_000)
        #expect(first.position == Coordinate(latitudeE7: 411_407_460, longitudeE7: -86_102_910))
    }
}
