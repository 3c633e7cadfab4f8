import Codec
import Domain
import Foundation
@testable import Runtime
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

    /// Indices of original publications whose `_id` is published nowhere else: changing one changes the run.
    static func publishedOnce(_ events: [Event]) -> Set<Int> {
        var count: [EventID: Int] = [:]
        for event in events { count[event.id, default: 0] += 1 }
        return Set(events.indices.filter { count[events[$0].id] == 1 && events[$0].revision == .original })
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

    @Test func aChangedEventNamesTheFieldsThatChanged() throws {
        let events = Self.fleetEvents()
        let once = Self.publishedOnce(events)
        let index = try #require(events.indices.first { once.contains($0) && events[$0].confidence != nil && events[$0].location != nil })
        var after = events
        after[index].location = Coordinate(latitude: 1, longitude: 2)
        after[index].confidence = nil

        let diff = EventDiff(before: events, after: after)
        let change = try #require(diff.changes.first)
        #expect(diff.changes.count == 1 && change.kind == .changed)
        #expect(change.fields.map(\.path) == ["location.coordinates[0]", "location.coordinates[1]", "confidence"])
        let longitude = try #require(change.fields.first { $0.path == "location.coordinates[0]" })
        #expect(longitude.after == "2" && longitude.before != nil && longitude.before != "2")
        let confidence = try #require(change.fields.first { $0.path == "confidence" })
        #expect(confidence.before != nil && confidence.after == nil)
        #expect(!change.isETAOnly && change.size == 3)
        #expect(diff.byField["location.coordinates[1]"] == 1 && diff.byField["confidence"] == 1)
    }

    @Test func examplesComeMostChangedFirstAndETAMovesLastLargestFirst() throws {
        let events = Self.fleetEvents()
        let once = Self.publishedOnce(events).sorted()
        let withETA = once.filter { events[$0].trip?.eta != nil }
        try #require(withETA.count >= 2)
        let (small, large) = (withETA[0], withETA[1])
        let twoFields = try #require(once.first { $0 != small && $0 != large && events[$0].location != nil })
        let oneField = try #require(once.first {
            ![small, large, twoFields].contains($0) && events[$0].trip != nil && events[$0].trip?.eta == nil
        })
        let removed = try #require(once.first { ![small, large, twoFields, oneField].contains($0) })
        var after = events
        after[small].trip!.eta!.durationSeconds += 6  // 0.1 min
        after[large].trip!.eta!.durationSeconds += 600  // 10 min
        after[large].trip!.eta!.distanceMeters += 900
        after[twoFields].location = Coordinate(latitude: 3, longitude: 4)
        after[oneField].createdAt += 1_000
        var retraction = events[removed]
        retraction.revision = .retracted
        after.append(retraction)

        let diff = EventDiff(before: events, after: after)
        let order = diff.changes.map(\.id)
        // Removed (every field differs), then 2 fields, then 1 field, then the ETA moves: 10 min before 0.1 min.
        #expect(order == [events[removed].id, events[twoFields].id, events[oneField].id, events[large].id, events[small].id])
        #expect(diff.etaOnlyChanges == 2)
        #expect(diff.changes.suffix(2).allSatisfy { $0.isETAOnly })
        let largeMove = try #require(diff.changes.first { $0.id == events[large].id })
        #expect(abs(largeMove.etaDurationMove - 10) < 0.001)
        #expect(Set(largeMove.fields.map(\.path)) == ["trip.eta.duration", "trip.eta.distance"])
        let field = try #require(largeMove.fields.first { $0.path == "trip.eta.duration" })
        #expect(Double(field.after ?? "") == Double(field.before ?? "").map { $0 + 10 })
    }

    @Test func jsonLeavesAreNamedByTheirPath() {
        let leaves = JSONLeaves.of(#"{"a":{"b":[1,{"c":"x"}],"e":{},"f":[]},"g":null,"h":true}"#)
        #expect(leaves == [
            .init(path: "a.b[0]", value: "1"), .init(path: "a.b[1].c", value: #""x""#), .init(path: "a.e", value: "{}"),
            .init(path: "a.f", value: "[]"), .init(path: "g", value: "null"), .init(path: "h", value: "true"),
        ])
        // Not JSON: one leaf holding the text, never a crash.
        #expect(JSONLeaves.of(#"{"a":"#) == [.init(path: "", value: #"{"a":"#)])
        #expect(FieldChange.between(#"{"a":1,"b":2}"#, #"{"a":1,"b":3,"c":4}"#) == [
            FieldChange(path: "b", before: "2", after: "3"), FieldChange(path: "c", before: nil, after: "4"),
        ])
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
