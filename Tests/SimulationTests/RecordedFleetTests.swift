import Domain
import Simulation
import Testing

@Suite(.timeLimit(.minutes(5))) struct RecordedFleetTests {
    static let recordedStart: UnixMillis = 1_372_636_800_000  // 2013-07-01T00:00:00Z

    /// A ride of 2 minutes: its start, a fix every 30 s, its completion; the fixes listed out of order.
    static var ride: [SimulatedRecord] {
        let at = { (seconds: Int64) in recordedStart + seconds * 1000 }
        func fix(_ seconds: Int64) -> SimulatedRecord {
            .fix(Fix(userId: "taxi", createdAt: at(seconds), position: Coordinate(latitude: 41.15, longitude: -8.61)))
        }
        return [
            .command(TripCommand(kind: .start, userId: "taxi", createdAt: at(0),
                                 trip: TripOptions(externalId: "ride", destinationGeofenceTag: "dropoff",
                                                   destinationGeofenceExternalId: "ride", scheduledArrivalAt: at(600)))),
            fix(30), fix(0), fix(60), fix(90), fix(120),
            .command(TripCommand(kind: .complete, userId: "taxi", createdAt: at(180), trip: TripOptions(externalId: "ride"))),
        ]
    }

    func play(_ fleet: inout RecordedFleet, steps: Int) -> [[SimulatedRecord]] {
        (0..<steps).map { _ in
            var records: [SimulatedRecord] = []
            _ = fleet.nextStep(into: &records)
            return records
        }
    }

    static func time(_ record: SimulatedRecord) -> UnixMillis {
        switch record {
        case let .fix(fix): fix.createdAt
        case let .command(command): command.createdAt
        case .geofence: -1
        }
    }

    @Test func playsTheRecordingFromTheStartInEventTimeStepByStep() {
        let start: UnixMillis = 1_800_000_000_000
        var fleet = RecordedFleet(geofences: [], inputs: Self.ride, start: start, stepSeconds: 30, pause: 60)
        #expect(fleet.roundMilliseconds == 240_000)  // 180 s of recording, 60 s of pause
        let steps = play(&fleet, steps: 8)
        for (index, records) in steps.enumerated() {
            for record in records {
                let time = Self.time(record)
                #expect(time >= start + Int64(index) * 30_000 && time < start + Int64(index + 1) * 30_000)
            }
        }
        let times = steps.flatMap { $0 }.map(Self.time)
        #expect(times == times.sorted())
        #expect(times.first == start)
        // The start comes before the fix of the same moment, as in the recording.
        if case .command = steps[0].first {} else { Issue.record("the start command is not first: \(steps[0])") }
    }

    @Test func playsAgainAndAgainWithTheTripsRenamedAndItsScheduleMoved() {
        let start: UnixMillis = 1_800_000_000_000
        var fleet = RecordedFleet(geofences: [], inputs: Self.ride, start: start, stepSeconds: 60, pause: 60)
        let records = play(&fleet, steps: 12).flatMap { $0 }
        let starts = records.compactMap { record -> TripCommand? in
            if case let .command(command) = record, command.kind == .start { command } else { nil }
        }
        #expect(starts.map(\.trip.externalId) == ["ride", "ride-2", "ride-3"])
        #expect(starts.map(\.createdAt) == [start, start + 240_000, start + 480_000])
        #expect(starts.map(\.trip.scheduledArrivalAt) == [start + 600_000, start + 840_000, start + 1_080_000])
        let fixes = records.filter { if case .fix = $0 { true } else { false } }
        #expect(fixes.count == 5 * 3)
    }

    @Test func endsAfterTheDuration() {
        var fleet = RecordedFleet(geofences: [], inputs: Self.ride, start: 0, stepSeconds: 60, duration: 300)
        var steps = 0
        var records: [SimulatedRecord] = []
        while fleet.nextStep(into: &records) { steps += 1 }
        #expect(steps == 6)  // steps starting at 0, 60, …, 300 s
        var empty = RecordedFleet(geofences: [], inputs: [], start: 0)
        let stepped = empty.nextStep(into: &records)
        #expect(!stepped)
    }
}
