import Domain
import Runtime
import Testing

/// State format 6: what a trip and a trip command gained (ETA milestones and errors, expiry, status).
@Suite struct TimelineCodecTripFieldsTests {
    @Test func tripFieldsOfFormatSixRoundTrip() throws {
        let plan = TripPlan(
            externalId: "t", destinationGeofenceTag: "store", destinationGeofenceExternalId: "g1",
            destinationCoordinates: nil, destinationRadius: 100, mode: .truck, approachingThreshold: 7,
            scheduledArrivalAt: 5_000_000, delayThreshold: 3, metadata: nil, expiry: 5_400_000)
        var progress = TripProgress(snapshot: TripSnapshot(plan: plan, status: .pending, startedAt: 1_000), ordinal: EventOrdinal(day: 0, count: 2))
        progress.etaMilestones.wayMeters = 4_000
        progress.etaMilestones.quarter = 900
        progress.etaMilestones.half = -5
        progress.snapshot.summary = TripSummary(distanceMeters: 10, durationSeconds: 20, timeOnSiteSeconds: nil,
                                                etaErrors: EtaErrors(quarter: -30, threeQuarters: 12))
        var state = UserState()
        state.trip = progress
        let command = TripCommand(kind: .update, userId: "u", createdAt: 2_000,
                                  trip: TripOptions(externalId: "t", expiresAfter: 45, status: .arrived))
        let decoded = try timelineRoundTrip(of: state, tailCommand: command)
        #expect(decoded.current == state)
        #expect(decoded.current.trip?.snapshot.plan.expiry == 5_400_000)
        #expect(decoded.current.trip?.etaMilestones == progress.etaMilestones)
        #expect(decoded.current.trip?.snapshot.summary?.etaErrors == EtaErrors(quarter: -30, threeQuarters: 12))
        #expect(decoded.tail.first?.command == command)
    }

    @Test func legsOfATripAndOfALegCommandRoundTrip() throws {
        let legs = [
            TripLeg(id: "a", destinationGeofenceTag: "store", destinationGeofenceExternalId: "g1", stopDuration: 5,
                    status: .completed, arrivedAt: 9_000),
            TripLeg(id: "leg-2", destinationCoordinates: Coordinate(latitudeE7: 1, longitudeE7: 2), arrivalRadius: 30,
                    metadata: RawJSON(#"{"k":1}"#)),
        ]
        let plan = TripPlan(
            externalId: "t", destinationGeofenceTag: nil, destinationGeofenceExternalId: nil, destinationCoordinates: nil,
            destinationRadius: 100, mode: .car, approachingThreshold: 5, scheduledArrivalAt: nil, metadata: nil
        ).with(legs: legs, defaultRadius: 100)
        var state = UserState()
        state.trip = TripProgress(snapshot: TripSnapshot(plan: plan, status: .started, startedAt: 1_000), ordinal: EventOrdinal(day: 0, count: 1))
        let commands = [
            TripCommand(kind: .addLegs, userId: "u", createdAt: 2_000, trip: TripOptions(externalId: "t", legs: legs)),
            TripCommand(kind: .reorderLegs, userId: "u", createdAt: 2_001,
                        trip: TripOptions(externalId: "t", legIds: ["leg-2", "a"])),
            TripCommand(kind: .updateLeg, userId: "u", createdAt: 2_002,
                        trip: TripOptions(externalId: "t", status: .canceled, legId: "leg-2")),
        ]
        let parts = UserTimeline.Parts(
            userId: "u", current: state, tailStart: UserState(), tail: commands.map { TimelineInput(command: $0) },
            storedSegments: 0, historyStart: .min, secondSegmentStart: .max, watermark: .min, lastTickTimer: .min,
            newestTime: 2_002)
        let decoded = try TimelineCodec.decode(TimelineCodec.encode(parts))
        #expect(decoded.current == state, "a trip without an ETA yet equals itself")
        #expect(decoded.current.trip?.snapshot.plan.currentLeg?.id == "leg-2")
        #expect(decoded.current.trip?.snapshot.plan.destinationCoordinates == Coordinate(latitudeE7: 1, longitudeE7: 2))
        #expect(decoded.tail.map(\.command) == commands)
    }
}
