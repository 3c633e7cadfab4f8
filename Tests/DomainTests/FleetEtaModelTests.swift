import Domain
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The learned ETA's parts: Welford counts, the residual quantiles, the map's buckets and expiry,
/// the trip's own pace, and the regression learning a law it is shown.
@Suite struct FleetEtaModelTests {
    static let monday: UnixMillis = 1_372_636_800_000  // 2013-07-01T00:00:00Z, a Monday

    @Test func welfordCountsMeanAndVarianceAndMergesLikeOneStream() {
        var all = WelfordCount(), first = WelfordCount(), second = WelfordCount()
        let values: [Float] = [2, 4, 4, 4, 5, 5, 7, 9]
        for (index, value) in values.enumerated() {
            all.add(value, hour: UInt32(index))
            if index < 3 { first.add(value, hour: UInt32(index)) } else { second.add(value, hour: UInt32(index)) }
        }
        #expect(all.count == 8)
        #expect(all.mean == 5)
        #expect(abs(all.variance - 32.0 / 7.0) < 1e-5)
        #expect(all.lastSeenHour == 7)
        first.merge(second)
        #expect(first.count == all.count)
        #expect(abs(first.mean - all.mean) < 1e-6)
        #expect(abs(first.squaredDeviations - all.squaredDeviations) < 1e-4)
        #expect(first.lastSeenHour == 7)
    }

    @Test func residualQuantilesFollowTheCountsAndFallBackToThePriorWhenThin() {
        var histogram = ResidualHistogram()
        // 100 residuals spread evenly over [-1, 1): 10 % of them below -0.8, 90 % below 0.8.
        for i in 0..<100 { histogram.add(-1 + (Double(i) + 0.5) / 50) }
        #expect(abs(histogram.quantile(0.5)) < 0.05)
        #expect(abs(histogram.quantile(0.1) - -0.8) < 0.05)
        #expect(abs(histogram.quantile(0.9) - 0.8) < 0.05)
        histogram.add(17)  // beyond the range: counted in the last bin, not lost
        #expect(histogram.total == 101)

        var thin = ResidualHistogram()
        for _ in 0..<5 { thin.add(2) }
        #expect(thin.quantile(0.5) < 0)  // five residuals do not move the prior's median
        #expect(thin.quantile(0.1) < thin.quantile(0.5) && thin.quantile(0.5) < thin.quantile(0.9))
    }

    @Test func timeOfWeekBucketsStartOnMondayUTC() {
        #expect(EtaPaceMap.bucket(of: Self.monday) == 0)
        #expect(EtaPaceMap.bucket(of: Self.monday + 4 * 3_600_000) == 1)
        #expect(EtaPaceMap.bucket(of: Self.monday - 1) == 41)  // Sunday 23:59:59.999
        #expect(EtaPaceMap.bucket(of: Self.monday + 7 * 86_400_000) == 0)
        #expect(EtaPaceMap.bucket(of: -1) == EtaPaceMap.bucket(of: 7 * 86_400_000 - 1))  // before 1970 too
    }

    @Test func theMapLearnsACellsSpeedAndForgetsCellsNotSeenForFourWeeks() {
        var map = EtaPaceMap()
        let slow = Coordinate(latitude: 41.15, longitude: -8.61)
        let fast = Coordinate(latitude: 41.20, longitude: -8.65)
        for i in 0..<200 {
            map.observe(speed: 2, at: slow, time: Self.monday + Int64(i) * 15_000)
            map.observe(speed: 20, at: fast, time: Self.monday + Int64(i) * 15_000)
        }
        let atSlow = map.logSpeed(at: slow, time: Self.monday)
        let atFast = map.logSpeed(at: fast, time: Self.monday)
        #expect(atSlow < log(3) && atSlow > log(2) - 0.01)
        #expect(atFast > log(15))
        // Another time of the week: the cell's whole-week count still knows it.
        #expect(abs(map.logSpeed(at: slow, time: Self.monday + 2 * 86_400_000) - atSlow) < 1e-9)
        #expect(map.cells.count == 4)

        let later = Self.monday + 29 * 86_400_000
        map.observe(speed: 20, at: fast, time: later)
        map.expire(before: later, expiryHours: FleetEtaModel.cellExpiryHours)
        #expect(map.cells.count == 2)  // the fast cell's week and bucket counts; the slow one expired
        #expect(abs(map.logSpeed(at: slow, time: later) - Double(map.fleet.mean)) < 1e-6)  // back to the fleet
    }

    @Test func aTripsPaceFollowsItsRecentSpeedAndClosingRate() {
        var pace = TripPace()
        let destination = Coordinate(latitude: 41.15, longitude: -8.61)
        func north(_ meters: Double) -> Coordinate {
            Coordinate(latitude: 41.15 + meters / 111_195, longitude: -8.61)
        }
        #expect(pace.advance(to: north(3000), centerDistance: 3000, edgeDistance: 2900, at: 0) == nil)
        #expect(pace.initialEdgeDistance == 2900)
        var distance = 3000.0
        for i in 1...40 {
            distance -= 150
            let speed = pace.advance(to: north(distance), centerDistance: distance, edgeDistance: distance - 100,
                                     at: Int64(i) * 15_000)
            #expect(abs((speed ?? 0) - 10) < 0.05)
        }
        #expect(abs(pace.recentSpeed - 10) < 0.1)
        #expect(abs(pace.closingRate - 10) < 0.1)
        #expect(pace.advance(to: destination, centerDistance: 0, edgeDistance: 0, at: 40 * 15_000) == nil)
    }

    /// Trips whose remaining time follows a known law with ±ln 1.5 noise: the regression finds the
    /// law, and the range holds about 80 % of the outcomes.
    @Test func theRegressionLearnsTheLawItIsShownAndTheRangeCoversIt() {
        var model = FleetEtaModel()
        // The law: remaining = 3 · edge^0.8 / (speed + 1)^0.3, other features irrelevant.
        func features(_ edge: Double, _ speed: Double, _ elapsed: Double) -> EtaFeatures {
            EtaFeatures(values: [1, log(edge + 30), log(elapsed + 60), log(3000), log(speed + 1), log(3), 1.6])
        }
        func truth(_ edge: Double, _ speed: Double) -> Double { 3 * pow(edge + 30, 0.8) / pow(speed + 1, 0.3) }
        var state: UInt64 = 42
        func uniform() -> Double {  // a fixed xorshift: the test is the same on every run
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Double(state % 1_000_000) / 1_000_000
        }
        let noise = [-0.4, -0.2, 0, 0.2, 0.4]
        for trip in 0..<400 {
            var checkpoints: [(features: EtaFeatures, remainingSeconds: Double)] = []
            for step in 0..<8 {
                let edge = 50 + uniform() * 5000, speed = uniform() * 15
                let remaining = truth(edge, speed) * exp(noise[(trip + step) % noise.count])
                checkpoints.append((features(edge, speed, Double(step) * 60), remaining))
            }
            model.learn(checkpoints)
        }
        #expect(model.samples == 3200)
        #expect(abs(model.coefficients[1] - 0.8) < 0.05)
        #expect(abs(model.coefficients[4] - -0.3) < 0.05)
        var covered = 0
        for _ in 0..<500 {
            let edge = 50 + uniform() * 5000, speed = uniform() * 15
            let estimate = model.estimate(features(edge, speed, 120))
            #expect(estimate.low <= estimate.seconds && estimate.seconds <= estimate.high)
            #expect(abs(log(estimate.seconds / truth(edge, speed))) < 0.15)
            let outcome = truth(edge, speed) * exp(noise[Int(uniform() * 5)])
            if estimate.low <= outcome && outcome <= estimate.high { covered += 1 }
        }
        #expect(covered >= 300 && covered <= 500)  // 3 or 5 of 5 noise levels, 60–100 %
    }

    @Test func beforeLearningTheModelIsTodaysSquareRootCurve() {
        let model = FleetEtaModel()
        let features = EtaFeatures(edgeDistance: 2000, elapsedSeconds: 0, pace: TripPace(), mapLogSpeed: 1.6)
        let expected = exp(FleetEtaModel.priorCoefficients[0]) * (2000.0 + 30).squareRoot()
        let estimate = model.estimate(features).seconds
        #expect(abs(log(estimate / expected) - -0.1) < 0.01)  // the prior range's median is 10 % low
    }

    @Test func mergingTwoHalvesEqualsLearningAll() {
        func checkpoints(_ seed: Int) -> [(features: EtaFeatures, remainingSeconds: Double)] {
            (0..<6).map { i in
                let edge = Double(200 + 300 * ((seed * 7 + i) % 11))
                return (EtaFeatures(values: [1, log(edge + 30), log(Double(i) * 60 + 60), log(4000), log(6), log(3),
                                             1.5]),
                        10 * edge.squareRoot() + Double(seed))
            }
        }
        var all = FleetEtaModel(), first = FleetEtaModel(), second = FleetEtaModel()
        for seed in 0..<40 {
            all.learn(checkpoints(seed))
            if seed < 20 { first.learn(checkpoints(seed)) } else { second.learn(checkpoints(seed)) }
        }
        first.merge(second)
        #expect(first.samples == all.samples)
        for (a, b) in zip(first.coefficients, all.coefficients) { #expect(abs(a - b) < 1e-9) }
    }
}
