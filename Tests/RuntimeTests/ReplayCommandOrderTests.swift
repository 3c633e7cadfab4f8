import Codec
import Domain
import Foundation
import LZ4IO
import Runtime
import Testing

/// A replay takes a commands file in event-time order whatever its line order. (Commands of the
/// same time are folded in the fold's own order, whatever their lines: a trip started and canceled
/// in the same millisecond is started, then canceled.)
@Suite struct ReplayCommandOrderTests {
    static let t0: UnixMillis = 1_767_247_200_000  // 2026-01-01T06:00:00Z

    @Test func commandsGoInEventTimeOrderWhateverTheirLines() throws {
        let directory = NSTemporaryDirectory() + "tripstream-command-order-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try ReplayJob.makeDirectory(directory)
        func line(_ body: (inout [UInt8]) -> Void) -> [UInt8] {
            var bytes: [UInt8] = []
            body(&bytes)
            return bytes
        }
        func command(_ kind: TripCommand.Kind, _ trip: String, seconds: Int64) -> [UInt8] {
            let command = TripCommand(kind: kind, userId: "A", createdAt: Self.t0 + seconds * 1_000,
                                      trip: TripOptions(externalId: trip, destinationGeofenceTag: "store",
                                                        destinationGeofenceExternalId: "g1", mode: .car))
            return line { InputRecordEncoder.encode(command, into: &$0) }
        }
        let store = Geofence(tag: "store", externalId: "g1", description: "store",
                             shape: .circle(center: Coordinate(latitude: 41.148, longitude: -8.611), radius: 150))
        let commands = [
            command(.start, "second", seconds: 60), command(.cancel, "second", seconds: 60),  // same time
            command(.start, "first", seconds: 0), command(.complete, "first", seconds: 30),   // earlier, later in the file
        ]
        let fixes = [10, 40, 70, 80].map { seconds in
            line {
                InputRecordEncoder.encode(
                    Fix(userId: "A", createdAt: Self.t0 + Int64(seconds) * 1_000,
                        position: Coordinate(latitude: 41.2, longitude: -8.6), accuracy: 5), into: &$0)
            }
        }
        let options = ReplayOptions(
            geofencesPath: try NDJSONFile.write([line { InputRecordEncoder.encode(store, into: &$0) }],
                                                to: directory + "/geofences.ndjson"),
            commandsPath: try NDJSONFile.write(commands, to: directory + "/commands.ndjson"),
            fixesPath: try NDJSONFile.write(fixes, to: directory + "/fixes.ndjson"),
            outputDirectory: directory + "/out", settings: FoldSettings())
        _ = try ReplayJob.run(options)
        let events = try String(contentsOfFile: directory + "/out/events.ndjson", encoding: .utf8)
            .split(separator: "\n").map { try EventDecoder.decode(Array($0.utf8)).event }
        let lifecycle = events.filter { $0.type == .startedTrip || $0.type == .stoppedTrip }
            .map { "\($0.type.name) \($0.trip?.plan.externalId ?? "-") \($0.trip?.status.name ?? "-")" }
        #expect(lifecycle == [
            "user.started_trip first started", "user.stopped_trip first completed",
            "user.started_trip second started", "user.stopped_trip second canceled",
        ])
        let letters = try String(contentsOfFile: directory + "/out/dead-letters.ndjson", encoding: .utf8)
        #expect(letters.isEmpty, "\(letters)")
    }
}
