@testable import Codec
import Domain
import Foundation
import Testing
import Simulation

@Suite("Event and ETA encoders: in-place writing")
struct InPlaceEncodingTests {
    func statelessBytes(_ event: Event, at time: UnixMillis) -> (event: [UInt8], eta: [UInt8]) {
        var eventBytes: [UInt8] = []
        var etaBytes: [UInt8] = []
        EventEncoder.encode(event, actualCreatedAt: time, into: &eventBytes)
        EtaEncoder.encode(event, actualCreatedAt: time, into: &etaBytes)
        return (eventBytes, etaBytes)
    }

    /// The layouts through the 2 KiB scratch writer (no reservation), and through in-place writing
    /// with a reservation far too small (every flush path).
    func scratchBytes(_ event: Event, at time: UnixMillis, reserving: Int?) -> (event: [UInt8], eta: [UInt8]) {
        var event = event
        var eventBytes: [UInt8] = Array("x".utf8)
        var etaBytes: [UInt8] = []
        if let reserving {
            JSONWriter.append(to: &eventBytes, reserving: reserving) { $0.event(&event, actualCreatedAt: time) }
            if event.trip != nil {
                JSONWriter.append(to: &etaBytes, reserving: reserving) { $0.etaRecord(&event, actualCreatedAt: time) }
            }
        } else {
            JSONWriter.append(to: &eventBytes) { $0.event(&event, actualCreatedAt: time) }
            if event.trip != nil {
                JSONWriter.append(to: &etaBytes) { $0.etaRecord(&event, actualCreatedAt: time) }
            }
        }
        return (Array(eventBytes.dropFirst()), etaBytes)
    }

    func expectSameBytes(_ event: Event, at time: UnixMillis) {
        let expected = statelessBytes(event, at: time)
        for reserving in [nil, 0] as [Int?] {
            let other = scratchBytes(event, at: time, reserving: reserving)
            #expect(other.event == expected.event && other.eta == expected.eta)
        }
        #expect(expected.event.count <= JSONWriter.maxEventBytes(event))
        if let plan = event.trip?.plan { #expect(expected.eta.count <= JSONWriter.maxEtaBytes(event, plan: plan)) }
        var eventBytes: [UInt8] = Array("prefix\n".utf8)
        var etaBytes: [UInt8] = []
        // Appending after bytes already in the buffer (as the output batches do).
        EventEncoder.encode(event, actualCreatedAt: time, into: &eventBytes)
        let wroteEta = EtaEncoder.encode(event, actualCreatedAt: time, into: &etaBytes)
        #expect(Array(eventBytes.dropFirst(7)) == expected.event, "\(String(decoding: expected.event, as: UTF8.self))")
        #expect(etaBytes == expected.eta && wroteEta == (event.trip != nil))
    }

    @Test func writesTheStatelessEncodersBytes() {
        for round in 0..<3 {
            for event in Fixtures.allEvents { expectSameBytes(event, at: Fixtures.processedAt + Int64(round)) }
        }
    }

    /// Many random plans and geofences: in-place, scratch and overflowing writes agree.
    @Test func randomEventsKeepTheBytes() {
        var random = SeededRandom(seed: 7)
        let modes = TravelMode.allCases
        for n in 0..<2_000 {
            let byCoordinates = random.next() % 2 == 0
            let plan = TripPlan(
                externalId: "trip-\(random.next() % 50)", destinationGeofenceTag: byCoordinates ? nil : "store",
                destinationGeofenceExternalId: byCoordinates ? nil : "store-\(n % 7)",
                destinationCoordinates: byCoordinates ? Coordinate(latitudeE7: 411_407_460, longitudeE7: -86_102_910) : nil,
                destinationRadius: Double(random.next() % 500) + 0.25, mode: modes[Int(random.next() % 5)],
                approachingThreshold: Int(random.next() % 20),
                scheduledArrivalAt: random.next() % 3 == 0 ? nil : Fixtures.t0 + Int64(random.next() % 10_000_000),
                metadata: random.next() % 2 == 0 ? nil : RawJSON(#"{"n":\#(n),"s":"a\"b"}"#))
            let geofence = Geofence(
                tag: "g", externalId: "g-\(n % 9)", description: "desc \(n)",
                shape: .circle(center: Coordinate(latitudeE7: 1, longitudeE7: 2), radius: Double(n % 30) + 0.5))
            let statuses = TripStatus.allCases
            let trip = TripSnapshot(
                plan: plan, status: statuses[Int(random.next() % 6)], startedAt: Fixtures.t0,
                eta: Eta(durationSeconds: Int32(random.next() % 5000), distanceMeters: Int32(random.next() % 90_000)))
            let event = Fixtures.event(
                random.next() % 4 == 0 ? .enteredGeofence : .updatedTrip, UInt32(n),
                geofence: random.next() % 3 == 0 ? geofence : nil, trip: random.next() % 5 == 0 ? nil : trip)
            expectSameBytes(event, at: Fixtures.processedAt)
        }
    }

    /// The size bound holds for the worst a plan can be: every character of its strings written as
    /// `\u00XX`, legs with ids, tags and metadata, the current leg's id written twice. Fails if the
    /// plan's text extent misses a string or the bound forgets `currentLegId`.
    @Test func theBoundCoversAFullyEscapedMultiLegPlan() {
        let control = String(repeating: "\u{1}", count: 300)
        let legs = (0..<4).map { n in
            TripLeg(id: String(repeating: "\u{2}", count: 1_000) + "\(n)", destinationGeofenceTag: control,
                    destinationGeofenceExternalId: control,
                    stopDuration: 0, metadata: RawJSON(#"{"note":"\#(n)"}"#), status: n == 0 ? .completed : .pending)
        }
        let plan = TripPlan(
            externalId: control, destinationGeofenceTag: control, destinationGeofenceExternalId: control,
            destinationCoordinates: nil, destinationRadius: 50, mode: .truck, approachingThreshold: 3,
            scheduledArrivalAt: nil, metadata: RawJSON(#"{"a":1}"#), legs: legs)
        #expect(plan.textExtent.strings == 4 + 4 * 3)
        #expect(plan.textExtent.jsonBytes == 7 + 4 * 12)
        let trip = TripSnapshot(plan: plan, status: .started, startedAt: Fixtures.t0,
                                eta: Eta(durationSeconds: 600, distanceMeters: 9_000))
        let event = Fixtures.event(.updatedTrip, 1, geofence: nil, trip: trip)
        var bytes: [UInt8] = []
        EventEncoder.encode(event, actualCreatedAt: Fixtures.processedAt, into: &bytes)
        #expect(bytes.count > 6 * (5_000 + 8 * 300))  // the strings really are escaped
        #expect(bytes.count <= JSONWriter.maxEventBytes(event))
        expectSameBytes(event, at: Fixtures.processedAt)
    }

    /// Geofence JSON from `GeofenceFragments` is what encoding it per event writes, also after an
    /// upsert replaced a geofence by a new object with the same id, and after the cache empties.
    @Test func geofenceFragmentsWriteTheSameBytes() {
        var fragments = GeofenceFragments(capacity: 3)
        for n in 0..<40 {
            let geofence = Geofence(
                tag: "g", externalId: "g-\(n % 5)", description: "desc \(n / 7) \u{1}\"",
                shape: n % 4 == 0
                    ? .polygon(rings: [[Coordinate(latitudeE7: 0, longitudeE7: 0), Coordinate(latitudeE7: 10, longitudeE7: 0),
                                         Coordinate(latitudeE7: 10, longitudeE7: 10), Coordinate(latitudeE7: 0, longitudeE7: 0)]])
                    : .circle(center: Coordinate(latitudeE7: 1, longitudeE7: 2), radius: Double(n % 30) + 0.25),
                metadata: n % 2 == 0 ? RawJSON("{\"n\":\(n)}") : nil, enabled: n % 3 != 0,
                dwellThreshold: n % 6 == 0 ? n : nil)
            for _ in 0..<2 {  // the second time from the cache
                var event = Fixtures.event(.enteredGeofence, UInt32(n), geofence: geofence)
                var expected: [UInt8] = [], actual: [UInt8] = []
                EventEncoder.encode(event, actualCreatedAt: 9, into: &expected)
                EventEncoder.encode(inPlace: &event, actualCreatedAt: 9, fragments: &fragments, into: &actual)
                #expect(actual == expected)
            }
        }
    }

    /// Loading a geofence's JSON ahead (`prefetchJSON`) encodes and keeps nothing, whether the
    /// geofence is held, never seen, replaced by a new object with its id, or absent from the event;
    /// the encoding after it writes the same bytes.
    @Test func askingForAFragmentAheadEncodesNothing() {
        var fragments = GeofenceFragments(capacity: 3)
        for n in 0..<30 {
            let geofence = Geofence(tag: "g", externalId: "g-\(n % 4)", description: "desc \(n)",
                                    shape: .circle(center: Coordinate(latitudeE7: 1, longitudeE7: 2), radius: Double(n) + 0.5))
            var event = Fixtures.event(.enteredGeofence, UInt32(n), geofence: geofence)
            var plain = Fixtures.event(.updatedTrip, UInt32(n), geofence: nil)
            for _ in 0..<2 {  // not held yet (new, or replacing the object held under its id), then held
                let held = fragments.heldBytes
                fragments.prefetchJSON(forGeofenceOf: &event)
                fragments.prefetchJSON(forGeofenceOf: &plain)
                #expect(fragments.heldBytes == held)
                var expected: [UInt8] = [], actual: [UInt8] = []
                EventEncoder.encode(event, actualCreatedAt: 9, into: &expected)
                EventEncoder.encode(inPlace: &event, actualCreatedAt: 9, fragments: &fragments, into: &actual)
                #expect(actual == expected)
            }
        }
    }

    /// A cache made from a whole table (shared by a replay's partitions) holds every geofence, past
    /// its capacity and its usual byte bound: copies used side by side write the same bytes as
    /// encoding each event, without encoding anything again. A geofence replaced later is encoded
    /// anew by the copy that meets it, and the other copies keep theirs.
    @Test func fragmentsOfAWholeTableWriteTheSameBytes() {
        func geofence(_ n: Int, description: String) -> Geofence {
            Geofence(tag: "t", externalId: "g-\(n)", description: description,
                     shape: .circle(center: Coordinate(latitudeE7: Int32(n), longitudeE7: 2), radius: Double(n) + 0.5))
        }
        let geofences = (0..<50).map { geofence($0, description: String(repeating: "d\"", count: $0 * 20)) }
        let shared = GeofenceFragments(encodingAll: GeofenceTable(geofences), capacity: 3)
        var first = shared, second = shared
        func expectEventBytes(_ geofence: Geofence, through fragments: inout GeofenceFragments) {
            var event = Fixtures.event(.enteredGeofence, 1, geofence: geofence)
            var expected: [UInt8] = [], actual: [UInt8] = []
            EventEncoder.encode(event, actualCreatedAt: 9, into: &expected)
            EventEncoder.encode(inPlace: &event, actualCreatedAt: 9, fragments: &fragments, into: &actual)
            #expect(actual == expected)
        }
        for geofence in geofences.reversed() {
            expectEventBytes(geofence, through: &first)
            expectEventBytes(geofence, through: &second)
        }
        #expect(first.heldBytes == shared.heldBytes && second.heldBytes == shared.heldBytes)

        let replacement = geofence(7, description: "replaced")
        expectEventBytes(replacement, through: &first)
        #expect(first.heldBytes > shared.heldBytes)
        expectEventBytes(geofences[7], through: &second)
        #expect(second.heldBytes == shared.heldBytes)
    }

    @Test func longStringsAndMetadata() {
        let metadata = RawJSON("{\"notes\":\"" + String(repeating: "x", count: 5_000) + "\"}")
        let plan = TripPlan(
            externalId: "long", destinationGeofenceTag: "t", destinationGeofenceExternalId: "e",
            destinationCoordinates: nil, destinationRadius: 100, mode: .bike, approachingThreshold: 2,
            scheduledArrivalAt: nil, metadata: metadata)
        let event = Fixtures.event(.updatedTrip, 2, trip: TripSnapshot(plan: plan, status: .started, startedAt: 0))
        expectSameBytes(event, at: 5)
        // Strings that escape to six bytes per byte, long and short.
        for length in [1, 79, 80, 81, 400, 3_000] {
            let controls = String(decoding: (0..<length).map { UInt8($0 % 32) }, as: UTF8.self)
            let escaping = TripPlan(
                externalId: controls, destinationGeofenceTag: controls, destinationGeofenceExternalId: controls,
                destinationCoordinates: nil, destinationRadius: 100, mode: .car, approachingThreshold: 2,
                scheduledArrivalAt: 7, metadata: nil)
            let geofence = Geofence(
                tag: controls, externalId: controls, description: controls,
                shape: .circle(center: Coordinate(latitudeE7: -1, longitudeE7: -2), radius: 12.5))
            var e = Fixtures.event(
                .updatedTrip, 3, geofence: geofence, trip: TripSnapshot(plan: escaping, status: .started, startedAt: 0))
            e.userId = controls
            e.deviceId = controls
            expectSameBytes(e, at: 5)
        }
    }

    @Test func destinationRadiusOnlyForCoordinateDestinations() throws {
        let geofenceTrip = EventEncoder.string(Fixtures.allEvents[5], actualCreatedAt: 0)
        #expect(geofenceTrip.contains(
            #""destinationGeofenceExternalId":"shift_12345","destinationLocation":{"type":"Point","coordinates":[-73.9911,40.7342]},"approachingThreshold":5"#))
        #expect(!geofenceTrip.contains("destinationRadius"))
        let pointTrip = EventEncoder.string(Fixtures.allEvents[12], actualCreatedAt: 0)
        #expect(
            pointTrip.contains(
                #""destinationLocation":{"type":"Point","coordinates":[-8.610291,41.140746]},"destinationRadius":55.5,"#))
        // Decoding: a geofence destination, and coordinates without a radius, read as 100 m.
        let decoded = try EventDecoder.decode(Array(geofenceTrip.utf8)).event
        #expect(decoded.trip?.plan.destinationRadius == 100)
        let withoutRadius = pointTrip.replacingOccurrences(of: #","destinationRadius":55.5"#, with: "")
        let point = try EventDecoder.decode(Array(withoutRadius.utf8)).event
        #expect(point.trip?.plan.destinationRadius == 100 && point.trip?.plan.destinationCoordinates != nil)
    }
}
