import Codec
import Domain
import Foundation
import Runtime
import Testing

/// Bad setup is said (issue 41): trip commands naming a destination geofence the table lacks are counted,
/// one warning per cause says them with the count, and the trips' events flow all the same.
@Suite(.timeLimit(.minutes(5))) struct SetupWarningsTests {
    static let start: UnixMillis = 1_767_225_600_000  // 2026-01-01T00:00:00Z
    static let store = Geofence(tag: "store", externalId: "a", description: "Store A",
                                shape: .circle(center: Coordinate(latitude: 41.15, longitude: -8.61), radius: 100))

    static func command(_ kind: TripCommand.Kind, trip: String, tag: String? = nil, externalId: String? = nil,
                        coordinates: Coordinate? = nil, legs: [TripLeg]? = nil, at seconds: Int64) -> TripCommand
    {
        TripCommand(kind: kind, userId: "u1", createdAt: start + seconds * 1000,
                    trip: TripOptions(externalId: trip, destinationGeofenceTag: tag, destinationGeofenceExternalId: externalId,
                                      destinationCoordinates: coordinates, legs: legs))
    }

    /// Folds `commands` against a table holding `geofences`; returns the processor and its events' types.
    static func fold(_ commands: [TripCommand], geofences: [Geofence]) -> (InputProcessor, [String]) {
        var processor = InputProcessor(settings: FoldSettings())
        var output = OutputBatch(newlineSeparated: false)
        let table = GeofenceTable(geofences)
        let source = RecordSource(topic: "tripstream.trip-commands", partition: 0, offset: 0)
        for command in commands {
            var bytes: [UInt8] = []
            InputRecordEncoder.encode(command, into: &bytes)
            bytes.withUnsafeBytes { value in
                processor.process(command, key: nil, value: value, source: source, geofences: table,
                                  processingTime: nil, into: &output)
            }
        }
        processor.settle(geofences: table, processingTime: nil, into: &output)
        var types: [String] = []
        try? output.events.forEach { _, value in
            if let event = try? EventDecoder.decode(value) { types.append(event.event.type.name) }
        }
        return (processor, types)
    }

    @Test func tripCommandsNamingADestinationGeofenceTheTableLacksAreCountedOnce() {
        let commands = [
            Self.command(.start, trip: "known", tag: "store", externalId: "a", at: 0),
            Self.command(.complete, trip: "known", at: 10),
            Self.command(.start, trip: "missing", tag: "store", externalId: "nowhere", at: 20),
            Self.command(.complete, trip: "missing", at: 30),
            Self.command(.start, trip: "by-coordinates", coordinates: Coordinate(latitude: 41.1, longitude: -8.6), at: 40),
            Self.command(.update, trip: "by-coordinates", tag: "store", externalId: "gone", at: 50),
            Self.command(.cancel, trip: "by-coordinates", at: 60),
            Self.command(.start, trip: "legs", legs: [TripLeg(destinationGeofenceTag: "store", destinationGeofenceExternalId: "a"),
                                                      TripLeg(destinationGeofenceTag: "store", destinationGeofenceExternalId: "x"),
                                                      TripLeg(destinationGeofenceTag: "store", destinationGeofenceExternalId: "y")],
                         at: 70),
        ]
        let (processor, types) = Self.fold(commands, geofences: [Self.store])
        #expect(processor.counters.unknownDestinations == 3)  // "missing", the update to "gone", the legs (once)
        #expect(processor.counters.unknownDestinationExample == "store/nowhere")
        // The trips are folded all the same: their events flow.
        #expect(processor.fold.counters.commands == commands.count)
        #expect(types.filter { $0 == "user.started_trip" }.count == 4, "\(types)")
        #expect(processor.counters.deadLetterTotal == 0)
    }

    @Test func anEmptyTableMakesEveryNamedDestinationUnknown() {
        let (processor, types) = Self.fold([Self.command(.start, trip: "t", tag: "store", externalId: "a", at: 0)],
                                           geofences: [])
        #expect(processor.counters.unknownDestinations == 1)
        #expect(types == ["user.started_trip"])
    }

    @Test func eachCauseIsSaidOnceWithItsCountUntilItGrowsTenfold() {
        var warnings = SetupWarnings(source: "--geofences g.ndjson")
        var counters = ProcessorCounters()
        #expect(warnings.next(geofences: 3, counters: counters).isEmpty)
        counters.unknownDestinations = 2
        counters.unknownDestinationExample = "store/nowhere"
        let first = warnings.next(geofences: 0, counters: counters)
        #expect(first.count == 2)
        #expect(first[0].hasPrefix("warning: the geofence table is empty (--geofences g.ndjson)"))
        #expect(first[1].hasPrefix("warning: 2 trip commands named a destination geofence that is not in the geofence table"))
        #expect(first[1].contains("e.g. store/nowhere"))
        counters.unknownDestinations = 19
        #expect(warnings.next(geofences: 0, counters: counters).isEmpty)
        counters.unknownDestinations = 20
        #expect(warnings.next(geofences: 0, counters: counters).map { $0.hasPrefix("warning: 20 trip commands") } == [true])
    }

    @Test func aFileReplayWithAnEmptyGeofencesFileCountsItsTripsToMissingDestinations() throws {
        let directory = NSTemporaryDirectory() + "tripstream-setup-warnings-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var lines: [[UInt8]] = []
        for trip in 0..<3 {
            var bytes: [UInt8] = []
            InputRecordEncoder.encode(Self.command(.start, trip: "t\(trip)", tag: "dropoff", externalId: "d\(trip)",
                                                   at: Int64(trip)), into: &bytes)
            lines.append(bytes)
        }
        let fixes = (0..<10).map { index in
            Array(#"{"userId":"u1","createdAt":"2026-01-01T00:0\#(index):00Z","latitude":41.15,"longitude":-8.61}"#.utf8)
        }
        let options = ReplayOptions(
            geofencesPath: try NDJSONFile.write([], to: directory + "/geofences.ndjson"),
            commandsPath: try NDJSONFile.write(lines, to: directory + "/commands.ndjson"),
            fixesPath: try NDJSONFile.write(fixes, to: directory + "/fixes.ndjson"), outputDirectory: directory + "/out",
            settings: FoldSettings())
        let summary = try ReplayJob.run(options)
        #expect(summary.geofences == 0)
        #expect(summary.processor.unknownDestinations == 3)
        #expect(summary.processor.unknownDestinationExample == "dropoff/d0")
        let events = try String(contentsOfFile: directory + "/out/events.ndjson", encoding: .utf8)
        #expect(events.contains("user.started_trip") && events.contains("user.updated_trip"))
    }
}
