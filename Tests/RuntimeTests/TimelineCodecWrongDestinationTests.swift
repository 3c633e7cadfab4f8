import Domain
import Runtime
import Testing

/// State format 10: whether the user stopped during each visit, and a trip's wrong-destination rule in
/// its plan and in its commands' options, survive a restore (a restored state equals the one before).
@Suite struct TimelineCodecWrongDestinationTests {
    @Test func stoppedVisitsAndTheRuleRoundTrip() throws {
        for rule in WrongDestinationRule.allCases {
            let plan = TripPlan(
                externalId: "t", destinationGeofenceTag: "store", destinationGeofenceExternalId: "g1",
                destinationCoordinates: nil, destinationRadius: 100, mode: .car, approachingThreshold: 5,
                scheduledArrivalAt: nil, metadata: nil, wrongDestination: rule)
            var state = UserState()
            state.trip = TripProgress(snapshot: TripSnapshot(plan: plan, status: .started, startedAt: 1_000),
                                      ordinal: EventOrdinal(day: 0, count: 1))
            state.presences = [
                Presence(geofenceID: GeofenceID(tag: "store", externalId: "g2"), enteredAt: 1_500, dwellDue: .max,
                         visitOrdinal: 1, stoppedInside: true),
                Presence(geofenceID: GeofenceID(tag: "store", externalId: "g3"), enteredAt: 1_600, dwellDue: .max,
                         visitOrdinal: 1, stoppedInside: false),
            ].sorted { $0.geofenceID < $1.geofenceID }
            let command = TripCommand(kind: .update, userId: "u", createdAt: 2_000,
                                      trip: TripOptions(externalId: "t", wrongDestination: rule))
            let decoded = try timelineRoundTrip(of: state, tailCommand: command)
            #expect(decoded.current == state)
            #expect(decoded.current.trip?.snapshot.plan.wrongDestination == rule)
            #expect(decoded.current.presences.map(\.stoppedInside) == state.presences.map(\.stoppedInside))
            #expect(decoded.tail.first?.command?.trip.wrongDestination == rule)
        }
    }
}
