@testable import Domain
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What partitions learn adds up to one model, whatever the grouping: the same trips and steps
/// split over one, two or four learners, in any order, give the same model.
@Suite struct EtaLearnerTests {
    static let start: UnixMillis = 1_372_636_800_000

    /// A trip's steps and samples, and when it arrived.
    struct Trip {
        var steps: [(speed: Double, position: Coordinate, time: UnixMillis)] = []
        var samples = EtaSampleList()
        var arrival: UnixMillis = 0
    }

    /// Trips from scattered starts toward scattered destinations near Porto, at their own speeds.
    static func trips(count: Int) -> [Trip] {
        var state: UInt64 = 3
        func uniform() -> Double {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Double(state % 1_000_000) / 1_000_000
        }
        return (0..<count).map { index in
            var trip = Trip()
            let begin = start + Int64(index) * 37_000
            let destination = Coordinate(latitude: 41.12 + 0.06 * uniform(), longitude: -8.66 + 0.08 * uniform())
            let speed = 3 + 12 * uniform()
            var edge = 1000 + 4000 * uniform()
            var pace = TripPace()
            var time = begin
            while edge > 0 {
                let position = Coordinate(latitude: destination.latitude + (edge + 100) / 111_195,
                                          longitude: destination.longitude)
                let step = pace.advance(to: position, centerDistance: edge + 100, edgeDistance: edge, at: time)
                if let step { trip.steps.append((step, position, time)) }
                if trip.samples.isDue(elapsed: time - begin) {
                    trip.samples.append(EtaSampleList.Sample(
                        time: time, position: position, destination: destination,
                        trip: TripFeatures(edgeDistance: edge, elapsedSeconds: Double(time - begin) / 1000, pace: pace)),
                                        elapsed: time - begin)
                }
                edge -= speed * 15 * (0.5 + uniform())
                time += 15_000
            }
            trip.arrival = time
            return trip
        }
    }

    static func learn(_ trips: some Sequence<Trip>, into learner: EtaLearner) {
        for trip in trips {
            for step in trip.steps {
                learner.observeStep(speed: step.speed, at: step.position, time: step.time,
                                    fold: trip.samples.learningFold ?? 0)
            }
            learner.learn(trip.samples, arrival: trip.arrival)
        }
    }

    @Test func oneTwoOrFourPartitionsLearnTheSameModel() {
        let trips = Self.trips(count: 300)
        let end = trips.map(\.arrival).max()!
        let one = EtaLearner()
        Self.learn(trips, into: one)
        let single = EtaLearner.merged(base: nil, [one], expiringBefore: end)
        #expect(single.samples > 1_000)
        #expect(single.paceMap.cells.count > 50)

        let two = [EtaLearner(), EtaLearner()]
        for (index, trip) in trips.enumerated() { Self.learn([trip], into: two[index % 2]) }
        let four = (0..<4).map { _ in EtaLearner() }
        for (index, trip) in trips.enumerated().reversed() { Self.learn([trip], into: four[(index * 7) % 4]) }
        #expect(EtaLearner.merged(base: nil, two, expiringBefore: end) == single)
        #expect(EtaLearner.merged(base: nil, four, expiringBefore: end) == single)
        #expect(EtaLearner.merged(base: nil, four.reversed(), expiringBefore: end) == single)
    }

    @Test func aTripsFeaturesReadTheMapWithoutItsOwnFold() throws {
        // A trip alone at 30 m/s in a far cell, the others at their city speeds: its own steps never
        // reach its features (the map there is the others' prior), though the model's map knows them.
        var trips = Self.trips(count: 60)
        var fast = Trip()
        let place = Coordinate(latitude: 40.0, longitude: -8.0)
        for index in 0..<40 {
            let time = Self.start + Int64(index) * 15_000
            if index > 0 { fast.steps.append((30, place, time)) }
            if index % 4 == 0 {
                fast.samples.append(EtaSampleList.Sample(
                    time: time, position: place, destination: place,
                    trip: TripFeatures(logEdge: 7, logElapsed: 5, logInitialEdge: 8, logSpeed: log(31), logClosing: 3)),
                                    elapsed: time - Self.start)
            }
            fast.arrival = time + 15_000
        }
        trips.append(fast)
        let learner = EtaLearner()
        Self.learn(trips, into: learner)
        let end = trips.map(\.arrival).max()!
        let (map, batch) = EtaLearner.checkpoints(onto: EtaPaceMap(), [learner], expiringBefore: end)
        let fastFold = try #require(fast.samples.learningFold)
        let own = batch.filter { $0.features.vector[4] == log(31) }  // the fast trip's speed lane
        #expect(own.count == fast.samples.count)
        #expect(own.allSatisfy { $0.fold == fastFold })
        #expect(map.logSpeed(at: place, time: fast.samples[3].time) > log(15), "the map knows the fast trip")
        for checkpoint in own {
            #expect(checkpoint.features.vector[6] < log(12), "its features do not")
            #expect(checkpoint.features.vector[7] < log(12))
        }
        #expect(EtaLearner.merged(base: nil, [learner], expiringBefore: end)
            == EtaLearner.merged(base: nil, [learner], expiringBefore: end), "fitting twice gives the same model")
    }

    @Test func learningOnFromALoadedModelAddsToIt() {
        let trips = Self.trips(count: 120)
        let end = trips.map(\.arrival).max()!
        let first = EtaLearner()
        Self.learn(trips.prefix(60), into: first)
        let base = EtaLearner.merged(base: nil, [first], expiringBefore: end)
        let second = EtaLearner()
        Self.learn(trips.suffix(60), into: second)
        let onward = EtaLearner.merged(base: base, [second], expiringBefore: end)
        let alone = EtaLearner.merged(base: nil, [second], expiringBefore: end)
        #expect(onward.samples == base.samples + alone.samples)
        #expect(onward.paceMap.fleet.count == base.paceMap.fleet.count + alone.paceMap.fleet.count)
    }
}
