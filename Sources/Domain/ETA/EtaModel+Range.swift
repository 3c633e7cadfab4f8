#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension EtaModel {
    /// The ETA with its 10–90 % range. Without a fleet model: the √distance curve (`estimate`), its
    /// range the prior's ratios. With one, in log space: ln ETA = w·ln(learned) + (1 − w)·ln(curve),
    /// the learned range moved by the same factor (`bench/eta_learned.py` measured both); one `exp`.
    /// - Parameters:
    ///   - edgeDistance: meters to the destination's edge (0 inside).
    ///   - position: the fix's position, for the map's pace there.
    ///   - destination: the destination's center, for the map's pace there (nil: taken as here).
    public static func estimateWithRange(centerDistance: Double, edgeDistance: Double, position: Coordinate,
                                         destination: Coordinate?, time: UnixMillis, elapsedSeconds: Double,
                                         pace: TripPace, mode: TravelMode, learning: EtaLearning,
                                         settings: EtaSettings) -> Eta
    {
        // The box, not a copy of the model out of it: a copy retained and released each of its arrays.
        guard let box = settings.fleetModelBox else {
            var eta = estimate(centerDistance: centerDistance, mode: mode, learning: learning, settings: settings)
            let curve = Double(eta.durationSeconds)
            eta.durationLowSeconds = wholeSeconds(curve * settings.priorLowFactor, atLeast: 0)
            eta.durationHighSeconds = wholeSeconds(curve * settings.priorHighFactor, atLeast: curve)
            return eta
        }
        let paces = box.model.logSpeeds(at: position, destination: destination, time: time)
        let features = EtaFeatures(TripFeatures(edgeDistance: edgeDistance, elapsedSeconds: elapsedSeconds, pace: pace),
                                   mapLogSpeed: paces.here, destinationLogSpeed: paces.destination)
        let learned = box.model.estimate(features)
        let logCurve = logScale(learning, settings) + 0.5 * naturalLog(max(centerDistance, settings.distanceFloor))
            + settings.logShrink + settings.logModeFactor(mode)
        // The fleet taught the model at a car's pace; the curve already has the mode's factor.
        let w = settings.learnedWeight
        let blended = exp(w * (learned.logSeconds + settings.logModeFactor(mode)) + (1 - w) * logCurve)
        let seconds = min(max(settings.minimumSeconds, blended), 86_400)
        return Eta(durationSeconds: wholeSeconds(seconds, atLeast: 0),
                   distanceMeters: distanceMeters(centerDistance, settings),
                   durationLowSeconds: wholeSeconds(min(seconds * learned.lowFactor, seconds), atLeast: 0),
                   durationHighSeconds: wholeSeconds(max(seconds * learned.highFactor, seconds), atLeast: 0))
    }

    /// `seconds` rounded half away from zero (as `rounded()`, without its libm call on every fix), at
    /// least `floor` (≥ 0) and at most `Int32.max`.
    private static func wholeSeconds(_ seconds: Double, atLeast floor: Double) -> Int32 {
        let clamped = min(max(seconds, floor), Double(Int32.max))
        guard clamped >= 0 else { return 0 }  // NaN
        let whole = Int32(clamped)
        return clamped - Double(whole) >= 0.5 ? whole + 1 : whole
    }
}

extension EtaModel {
    /// Feeds the partition's learner a trip's step (`speed`, m/s; nil for its first fix) and, when
    /// one is due, a learning sample of the trip now.
    static func learnStep(_ speed: Double?, at position: Coordinate, time: UnixMillis, trip: inout TripProgress,
                          edgeDistance: Double, learner: EtaLearner)
    {
        if let speed {
            learner.observeStep(speed: speed, at: position, time: time, fold: trip.etaSamples.learningFold ?? 0)
        }
        let elapsed = time - trip.snapshot.startedAt
        guard trip.etaSamples.isDue(elapsed: elapsed),
            let destination = trip.snapshot.destinationLocation ?? trip.snapshot.plan.destinationCoordinates
        else { return }
        let features = TripFeatures(edgeDistance: edgeDistance, elapsedSeconds: Double(elapsed) / 1000, pace: trip.pace)
        trip.etaSamples.append(EtaSampleList.Sample(time: time, position: position, destination: destination,
                                                    trip: features), elapsed: elapsed)
    }
}
