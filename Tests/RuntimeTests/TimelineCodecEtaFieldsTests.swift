import Domain
import Runtime
import Testing

/// State format 9: what a trip gained for the learned ETA (the ETA's range, the trip's own pace and
/// its learning samples) survives a restart.
@Suite struct TimelineCodecEtaFieldsTests {
    @Test func theRangePaceAndLearningSamplesOfATripRoundTrip() throws {
        let plan = TripPlan(
            externalId: "t", destinationGeofenceTag: nil, destinationGeofenceExternalId: nil,
            destinationCoordinates: Coordinate(latitude: 41.15, longitude: -8.61), destinationRadius: 100, mode: .car,
            approachingThreshold: 5, scheduledArrivalAt: nil, metadata: nil)
        var progress = TripProgress(snapshot: TripSnapshot(plan: plan, status: .started, startedAt: 1_000), ordinal: EventOrdinal(day: 0, count: 1))
        progress.snapshot.eta = Eta(durationSeconds: 300, distanceMeters: 2_000, durationLowSeconds: 170,
                                    durationHighSeconds: 720)
        for (index, north) in [3_000.0, 2_850, 2_700].enumerated() {
            let position = Coordinate(latitude: 41.15 + north / 111_195, longitude: -8.61)
            let time = 1_000 + UnixMillis(index) * 15_000
            progress.pace.advance(to: position, centerDistance: north, edgeDistance: north - 100, at: time)
            let features = TripFeatures(edgeDistance: north - 100, elapsedSeconds: Double(index) * 15,
                                        pace: progress.pace)
            if progress.etaSamples.isDue(elapsed: time - 1_000) {
                // West of Greenwich and south of the equator: the stored bits of negative degrees.
                let destination = Coordinate(latitude: -33.45, longitude: -70.66)
                progress.etaSamples.append(EtaSampleList.Sample(time: time, position: position, destination: destination,
                                                                trip: features), elapsed: time - 1_000)
            }
        }
        #expect(progress.etaSamples.count == 2)  // at 0 s and 30 s, not 15 s
        #expect(progress.pace.recentSpeed != TripPace().recentSpeed)
        var state = UserState()
        state.trip = progress
        let parts = UserTimeline.Parts(
            userId: "u", current: state, tailStart: UserState(), tail: [], storedSegments: 0, historyStart: .min,
            secondSegmentStart: .max, watermark: .min, lastTickTimer: .min, newestTime: 31_000)
        let decoded = try TimelineCodec.decode(TimelineCodec.encode(parts))
        #expect(decoded.current == state)
        #expect(decoded.current.trip?.snapshot.eta?.durationLowSeconds == 170)
        #expect(decoded.current.trip?.snapshot.eta?.durationHighSeconds == 720)
        #expect(decoded.current.trip?.pace == progress.pace)
        #expect(decoded.current.trip?.etaSamples == progress.etaSamples)
        #expect(decoded.current.trip?.etaSamples.last?.destination == Coordinate(latitude: -33.45, longitude: -70.66))
    }
}
