@testable import Domain
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The learned ETA's parts: pace counts, the residual quantiles, the map's buckets, lookup table
/// and expiry, the trip's own pace, and the regression learning a law it is shown, regime by regime,
/// with a range that holds band by band.
@Suite struct FleetEtaModelTests {
    static let monday: UnixMillis = 1_372_636_800_000  // 2013-07-01T00:00:00Z, a Monday

    /// A fixed xorshift: the same numbers on every run.
    struct Random {
        var state: UInt64
        mutating func uniform() -> Double {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Double(state % 1_000_000) / 1_000_000
        }
    }

    @Test func paceCountsAddToTheSameBitsInAnyGrouping() {
        let values = [0.3, 2.2, 14, 7.5, 0.9, 31, 5.5, 12.25].map { PaceCount.fixedPoint(log($0)) }
        var all = PaceCount(), odd = PaceCount(), even = PaceCount(), reversed = PaceCount()
        for (index, value) in values.enumerated() {
            all.add(value, hour: UInt32(index))
            if index % 2 == 0 { even.add(value, hour: UInt32(index)) } else { odd.add(value, hour: UInt32(index)) }
        }
        for (index, value) in values.enumerated().reversed() { reversed.add(value, hour: UInt32(index)) }
        var merged = odd
        merged.merge(even)
        #expect(merged == all)
        #expect(reversed == all)
        #expect(all.count == 8 && all.lastSeenHour == 7)
        let mean = values.map { Double($0) / PaceCount.scale }.reduce(0, +) / 8
        #expect(abs(all.mean - mean) < 1e-12)
        #expect(abs(all.mean - [0.3, 2.2, 14, 7.5, 0.9, 31, 5.5, 12.25].map(log).reduce(0, +) / 8) < 1e-6)
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

    @Test func cellsAreAboutAsWideAsTheyAreTallAtEveryLatitude() {
        // The column width follows cos(latitude), computed by a series: the same cells as libm's cos.
        var random = Random(state: 7)
        var differing = 0
        for _ in 0..<20_000 {
            let position = Coordinate(latitude: -89.9 + 179.8 * random.uniform(), longitude: -179.9 + 359.8 * random.uniform())
            let libm = Int64((position.longitude * cos(position.latitude * .pi / 180) / EtaPaceMap.cellDegrees)
                .rounded(.down))
            let column = Int64((EtaPaceMap.key(of: position, bucket: 0) >> 8) & 0x0FFF_FFFF)
            if column != (libm & 0x0FFF_FFFF) { differing += 1 }
        }
        #expect(differing == 0)
    }

    @Test func theFeaturesLogIsLibmsToNineDigits() {
        var random = Random(state: 13)
        for _ in 0..<100_000 {
            let x = exp(-20 + 60 * random.uniform())  // 2e-9 … 1e17
            #expect(abs(naturalLog(x) - log(x)) <= 1e-9)
        }
        for x in [1.0, 2, 30, 60, 0.5, 1.4142135623730951, 1.4142135623730954, 86_400] {
            #expect(abs(naturalLog(x) - log(x)) <= 1e-9)
        }
        #expect(naturalLog(1) == 0 && naturalLog(.nan).isNaN && naturalLog(0) == -.infinity && naturalLog(-1).isNaN)
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
        #expect(abs(map.logSpeed(at: slow, time: later) - map.fleet.mean) < 1e-12)  // back to the fleet
    }

    @Test func aMapWithoutAFoldsStepsIsTheMapOfTheOthers() {
        var mine = EtaPaceMap(), others = EtaPaceMap()
        let place = Coordinate(latitude: 41.15, longitude: -8.61)
        for i in 0..<30 {
            mine.observe(speed: 25, at: place, time: Self.monday + Int64(i) * 15_000)
            others.observe(speed: 3, at: place, time: Self.monday + Int64(i) * 15_000)
        }
        var all = others
        all.merge(mine)
        #expect(all.logSpeed(at: place, time: Self.monday, excluding: mine) == others.logSpeed(at: place, time: Self.monday))
        #expect(all.logSpeed(at: place, time: Self.monday) > others.logSpeed(at: place, time: Self.monday) + 1)
    }

    /// The table the ETA reads on every fix answers what the map's counts say: bucket, week
    /// fallback, the fleet where nothing is known.
    @Test func theLookupTableAnswersAsTheMap() throws {
        var map = EtaPaceMap()
        var random = Random(state: 11)
        for i in 0..<5_000 {
            let position = Coordinate(latitude: 41.10 + 0.1 * random.uniform(), longitude: -8.70 + 0.15 * random.uniform())
            map.observe(speed: 1 + 20 * random.uniform(), at: position, time: Self.monday + Int64(i) * 40_000)
        }
        let model = try #require(FleetEtaModel(paceMap: map, regimes: FleetEtaModel().regimes, samples: 0,
                                               residuals: FleetEtaModel().residuals))
        for i in 0..<2_000 {
            let position = Coordinate(latitude: 41.05 + 0.2 * random.uniform(), longitude: -8.75 + 0.25 * random.uniform())
            let time = Self.monday + Int64(i) * 300_000
            #expect(abs(model.logSpeed(at: position, time: time) - map.logSpeed(at: position, time: time)) < 1e-6)
        }
    }

    @Test func aTripsStepIsGeodesysDistance() {
        var random = Random(state: 17)
        for _ in 0..<10_000 {
            let a = Coordinate(latitude: -85 + 170 * random.uniform(), longitude: -180 + 360 * random.uniform())
            let b = Coordinate(latitude: a.latitude + 0.02 * (random.uniform() - 0.5),
                               longitude: a.longitude + 0.02 * (random.uniform() - 0.5))
            let expected = Geodesy.distance(a, b)
            #expect(abs(Geodesy.portableDistance(a, b) - expected) <= 1e-9 * max(expected, 1))
        }
        let west = Coordinate(latitude: 10, longitude: 179.9995), east = Coordinate(latitude: 10, longitude: -179.9995)
        #expect(abs(Geodesy.portableDistance(west, east) - Geodesy.distance(west, east)) < 1e-6)  // the short way
        #expect(Geodesy.portableDistance(west, east) < 200)
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

    static func features(edge: Double, initial: Double = 3000, speed: Double, elapsed: Double = 120,
                         destinationPace: Double = 1.6) -> EtaFeatures
    {
        EtaFeatures(values: [1, log(edge + 30), log(elapsed + 60), log(initial + 30), log(speed + 1), log(3), 1.6,
                             destinationPace])
    }

    /// Trips whose remaining time follows a known law with ±ln 1.5 noise: each regime's regression
    /// finds the law, and the range holds about 80 % of the outcomes.
    @Test func theRegressionLearnsTheLawItIsShownAndTheRangeCoversIt() {
        var model = FleetEtaModel()
        // The law: remaining = 3 · edge^0.8 / (speed + 1)^0.3, other features irrelevant.
        func truth(_ edge: Double, _ speed: Double) -> Double { 3 * pow(edge + 30, 0.8) / pow(speed + 1, 0.3) }
        var random = Random(state: 42)
        let noise = [-0.4, -0.2, 0, 0.2, 0.4]
        var batch: [FleetEtaModel.Checkpoint] = []
        for trip in 0..<600 {
            for step in 0..<8 {
                let edge = 20 + random.uniform() * 6000, speed = random.uniform() * 15
                let remaining = truth(edge, speed) * exp(noise[(trip + step) % noise.count])
                batch.append(.init(features: Self.features(edge: edge, speed: speed, elapsed: Double(step) * 60),
                                   remainingSeconds: remaining, fold: trip % EtaLearner.folds))
            }
        }
        model.learn(batch)
        #expect(model.samples == 4800)
        for regime in 0...2 {
            let coefficients = model.coefficients(regime: regime)
            #expect(abs(coefficients[4] - -0.3) < 0.05, "regime \(regime): \(coefficients)")
        }
        #expect(abs(model.coefficients(regime: 2)[1] - 0.8) < 0.05)  // the way: the widest range of distances
        var covered = 0
        for _ in 0..<500 {
            let edge = 20 + random.uniform() * 6000, speed = random.uniform() * 15
            let estimate = model.estimate(Self.features(edge: edge, speed: speed))
            #expect(estimate.lowFactor < 1 && estimate.highFactor > 1)
            #expect(abs(estimate.logSeconds - log(truth(edge, speed))) < 0.2)
            let outcome = truth(edge, speed) * exp(noise[Int(random.uniform() * 5)])
            let seconds = exp(estimate.logSeconds)
            if seconds * estimate.lowFactor <= outcome && outcome <= seconds * estimate.highFactor { covered += 1 }
        }
        #expect(covered >= 300 && covered <= 500)  // 3 or 5 of 5 noise levels, 60–100 %
    }

    /// The last 300 m follow a law of their own (a minute and a half to park, whatever the speed): the
    /// approach regime learns it, and the way beyond keeps its own law.
    @Test func theApproachIsARegimeOfItsOwn() {
        var model = FleetEtaModel()
        var random = Random(state: 5)
        var batch: [FleetEtaModel.Checkpoint] = []
        for trip in 0..<500 {
            for _ in 0..<6 {
                let edge = random.uniform() < 0.4 ? random.uniform() * 280 : 1600 + random.uniform() * 6000
                let speed = random.uniform() * 15
                let remaining = edge < 300 ? 90 : 3 * pow(edge + 30, 0.8) / pow(speed + 1, 0.3)
                batch.append(.init(features: Self.features(edge: edge, speed: speed), remainingSeconds: remaining,
                                   fold: trip % EtaLearner.folds))
            }
        }
        model.learn(batch)
        let approach = model.coefficients(regime: 0), way = model.coefficients(regime: 2)
        #expect(abs(approach[1]) < 0.05 && abs(approach[4]) < 0.05, "no distance or speed in the approach: \(approach)")
        #expect(abs(way[1] - 0.8) < 0.05 && abs(way[4] - -0.3) < 0.05, "the way's law: \(way)")
        for edge in [10.0, 150, 280] {
            #expect(abs(exp(model.estimate(Self.features(edge: edge, speed: 8)).logSeconds) - 90) < 5)
        }
    }

    /// Early in a ride the outcome is spread ±ln 2, late ±ln 1.2: each progress band has a range of
    /// its own width, and each covers about 80 % of its own outcomes.
    @Test func theRangeIsCalibratedAtEachPointOfTheRide() {
        var model = FleetEtaModel()
        var random = Random(state: 9)
        func spread(_ shareDone: Double) -> Double { shareDone < 0.375 ? log(2) : shareDone < 0.625 ? log(1.5) : log(1.2) }
        func draw() -> (features: EtaFeatures, remaining: Double) {
            let initial = 2000 + random.uniform() * 3000, done = random.uniform() * 0.95
            let edge = (initial + 30) * (1 - done) - 30
            let noise = (2 * random.uniform() - 1) * spread(done)  // uniform: the 10–90 % is ±0.8 · spread
            return (Self.features(edge: edge, initial: initial, speed: 8), 2 * (edge + 30) * exp(noise))
        }
        var batch: [FleetEtaModel.Checkpoint] = []
        for trip in 0..<2_000 {
            for _ in 0..<4 {
                let (features, remaining) = draw()
                batch.append(.init(features: features, remainingSeconds: remaining, fold: trip % EtaLearner.folds))
            }
        }
        model.learn(batch)
        var covered = [0, 0, 0], drawn = [0, 0, 0], width = [0.0, 0, 0]
        for _ in 0..<6_000 {
            let (features, remaining) = draw()
            let done = 1 - exp(features.vector[1] - features.vector[3])
            let band = done < 0.375 ? 0 : done < 0.625 ? 1 : 2
            let estimate = model.estimate(features), seconds = exp(estimate.logSeconds)
            drawn[band] += 1
            width[band] += log(estimate.highFactor / estimate.lowFactor)
            if seconds * estimate.lowFactor <= remaining && remaining <= seconds * estimate.highFactor { covered[band] += 1 }
        }
        for band in 0..<3 {
            let coverage = Double(covered[band]) / Double(drawn[band])
            #expect(coverage > 0.74 && coverage < 0.86, "band \(band): \(coverage)")
        }
        #expect(width[0] / Double(drawn[0]) > 2.5 * width[2] / Double(drawn[2]))
    }

    @Test func aFixsBandIsItsDistanceBandAndShareOfTheWayDone() {
        var random = Random(state: 21)
        for _ in 0..<20_000 {
            let edge = 9000 * random.uniform(), initial = edge + 9000 * random.uniform() - 1000
            let features = Self.features(edge: edge, initial: max(initial, 0), speed: 5)
            let done = 1 - (edge + 30) / (max(initial, 0) + 30)
            let distance = FleetEtaModel.bandLimits.filter { edge >= $0 }.count
            let progress = FleetEtaModel.progressLimits.filter { done >= $0 }.count
            let band = FleetEtaModel.band(of: features)
            if abs(done - 0.375) > 1e-9, abs(done - 0.625) > 1e-9 {
                #expect(band == distance * (FleetEtaModel.progressLimits.count + 1) + progress)
            }
        }
    }

    @Test func beforeLearningTheModelIsTodaysSquareRootCurve() {
        let model = FleetEtaModel()
        let features = EtaFeatures(
            TripFeatures(edgeDistance: 2000, elapsedSeconds: 0, pace: TripPace()), mapLogSpeed: 1.6,
            destinationLogSpeed: 1.6)
        let expected = exp(FleetEtaModel.priorCoefficients[0]) * (2000.0 + 30).squareRoot()
        #expect(abs(model.estimate(features).logSeconds - log(expected) - -0.1) < 0.01)  // the prior's median: 10 % low
    }

    @Test func theRegressionOfTwoHalvesIsTheRegressionOfAll() throws {
        func checkpoints(_ seed: Int) -> [FleetEtaModel.Checkpoint] {
            (0..<6).map { i in
                let edge = Double(200 + 300 * ((seed * 7 + i) % 11))
                return .init(features: EtaFeatures(values: [1, log(edge + 30), log(Double(i) * 60 + 60), log(4000),
                                                            log(6), log(3), 1.5, 1.2]),
                             remainingSeconds: 10 * edge.squareRoot() + Double(seed), fold: seed % EtaLearner.folds)
            }
        }
        var all = FleetEtaModel(), first = FleetEtaModel(), second = FleetEtaModel()
        all.learn((0..<40).flatMap(checkpoints))
        first.learn((0..<20).flatMap(checkpoints))
        second.learn((20..<40).flatMap(checkpoints))
        // The halves' statistics added, as a model file of them would hold them.
        var regimes = first.regimes
        for index in regimes.indices { regimes[index].merge(second.regimes[index]) }
        let halves = try #require(FleetEtaModel(paceMap: first.paceMap, regimes: regimes,
                                                samples: first.samples + second.samples, residuals: first.residuals))
        #expect(halves.samples == all.samples)
        for regime in 0...2 {
            for (a, b) in zip(halves.coefficients(regime: regime), all.coefficients(regime: regime)) {
                #expect(abs(a - b) < 1e-9)
            }
        }
    }
}
