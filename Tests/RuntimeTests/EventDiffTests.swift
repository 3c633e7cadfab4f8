import Codec
import Domain
import Foundation
import Runtime
import Simulation
import Testing

/// `tripstream diff`: two runs' events compared by `_id` after upserting each run.
@Suite struct EventDiffTests {
    /// The events of a small simulated fleet, folded in arrival order.
    static func fleetEvents() -> [Event] {
        var settings = SimulationSettings()
        settings.users = 12
        settings.geofences = 30
        settings.duration = 15 * 60
        settings.seed = 31
        var simulator = FleetSimulator(settings: settings)
        var geofences: [Geofence] = []
        for record in simulator.geofenceRecords { if case let .geofence(g) = record { geofences.append(g) } }
        let table = GeofenceTable(geofences)
        var fold = PartitionFold()
        var events: [Event] = []
        var step: [SimulatedRecord] = []
        while simulator.nextStep(into: &step) {
            for record in step {
                switch record {
                case let .fix(f): _ = fold.process(f, geofences: table, processingTime: f.createdAt, events: &events)
                case let .command(c): _ = fold.process(c, geofences: table, processingTime: c.createdAt, events: &events)
                case .geofence: break
                }
            }
            step.removeAll()
        }
        return events
    }

    @Test func sameEventsDeliveredDifferentlyAreNoDifference() {
        let events = Self.fleetEvents()
        #expect(events.count > 50)
        // The same content published late, corrected and with other processing times.
        let redelivered = events.map { event in
            var copy = event
            copy.replayed = true
            copy.late = true
            if copy.revision != .retracted { copy.revision = .corrected }
            return copy
        }
        // Repeats of events (identical republications) change nothing either.
        let diff = EventDiff(before: events, after: redelivered + events.filter { $0.revision == .original }.prefix(5))
        #expect(diff.isEmpty)
        #expect(diff.eventsBefore == diff.eventsAfter)
    }

    @Test func addedRemovedAndChangedAreCountedPerTypeAndGeofence() throws {
        let events = Self.fleetEvents()
        let withGeofence = try #require(events.firstIndex { $0.geofence != nil })
        let other = try #require(events.indices.last { $0 != withGeofence && events[$0].geofence == nil })
        var after = events
        // Changed: the geofence event's location moved; removed: retracted in the second run.
        after[withGeofence].location = Coordinate(latitude: 1, longitude: 2)
        var retraction = events[other]
        retraction.revision = .retracted
        after.append(retraction)
        // Added: an event the first run does not have.
        var extra = events[other]
        extra.id = EventID(high: 1, low: 2)
        after.append(extra)

        let diff = EventDiff(before: events, after: after)
        #expect(diff.counts == EventDiff.Counts(added: 1, removed: 1, changed: 1))
        let geofence = events[withGeofence].geofence!
        #expect(diff.byGeofence["\(geofence.tag)/\(geofence.externalId)"]?.changed == 1)
        #expect(diff.byType[events[withGeofence].type]?.changed == 1)
        #expect(diff.changes.map(\.kind).sorted { $0.rawValue < $1.rawValue } == [.added, .changed, .removed])
        let changed = try #require(diff.changes.first { $0.kind == .changed })
        #expect(changed.before != nil && changed.after != nil && changed.before != changed.after)
        // What diff prints is content: no processing time, so no 1970 date.
        for change in diff.changes {
            for text in [change.before, change.after].compactMap({ $0 }) {
                #expect(!text.contains("actualCreatedAt") && !text.contains("1970-"), "\(text)")
                #expect(text.contains(#""createdAt":"#), "\(text)")
            }
        }
    }

    @Test func anUnreadableLineIsAnErrorNamingIt() throws {
        let path = NSTemporaryDirectory() + "events-\(UUID().uuidString).ndjson"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var bytes: [UInt8] = []
        EventEncoder.encode(Self.fleetEvents()[0], actualCreatedAt: 0, into: &bytes)
        bytes += Array("\n{\"nope\":1}\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: EventFileError.self) { try EventDiff.readEvents(path: path) }
        do {
            _ = try EventDiff.readEvents(path: path)
        } catch {
            #expect("\(error)".contains(":2: not an event"))
        }
    }
}
