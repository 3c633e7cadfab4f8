#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension EtaModel {
    /// The ETA with its 10–90 % range. Without a fleet model: the √distance curve (`estimate`), its
    /// range the prior's ratios. With one: ln ETA = w·ln(learned) + (1 − w)·ln(curve), the learned
    /// range moved by the same factor (`bench/eta_learned.py` measured both).
    /// - Parameters:
    ///   - edgeDistance: meters to the destination's edge (0 inside).
    ///   - position: the fix's position, for the map's pace there.
    public static func estimateWithRange(centerDistance: Double, edgeDistance: Double, position: Coordinate,
                                         time: UnixMillis, elapsedSeconds: Double, pace: TripPace,
                                         mode: TravelMode, learning: EtaLearning, settings: EtaSettings) -> Eta
    {
        var eta = estimate(centerDistance: centerDistance, mode: mode, learning: learning, settings: settings)
        let curve = Double(eta.durationSeconds)
        guard let model = settings.fleetModel else {
            eta.durationLowSeconds = wholeSeconds(curve * exp(settings.priorLowLogRatio), atLeast: 0)
            eta.durationHighSeconds = wholeSeconds(curve * exp(settings.priorHighLogRatio), atLeast: curve)
            return eta
        }
        let features = EtaFeatures(edgeDistance: edgeDistance, elapsedSeconds: elapsedSeconds, pace: pace,
                                   mapLogSpeed: model.paceMap.logSpeed(at: position, time: time))
        let learned = model.estimate(features)
        let w = settings.learnedWeight
        // The fleet taught the model at a car's pace; the curve already has the mode's factor.
        let blended = exp(w * log(learned.seconds * settings.modeFactor(mode)) + (1 - w) * log(curve))
        let shift = blended / learned.seconds
        let seconds = max(settings.minimumSeconds, blended)
        eta.durationSeconds = wholeSeconds(seconds, atLeast: 0)
        eta.durationLowSeconds = wholeSeconds(min(learned.low * shift, seconds), atLeast: 0)
        eta.durationHighSeconds = wholeSeconds(max(learned.high * shift, seconds), atLeast: 0)
        return eta
    }

    private static func wholeSeconds(_ seconds: Double, atLeast floor: Double) -> Int32 {
        Int32(min(max(seconds, floor).rounded(), Double(Int32.max)))
    }
}

extension EtaModel {
    /// Feeds the partition's learner a trip's step (`speed`, m/s; nil for its first fix) and, when
    /// one is due, a learning sample of the trip's features now.
    static func learnStep(_ speed: Double?, at position: Coordinate, time: UnixMillis, trip: inout TripProgress,
                          edgeDistance: Double, learner: EtaLearner)
    {
        if let speed { learner.observeStep(speed: speed, at: position, time: time) }
        let elapsed = time - trip.snapshot.startedAt
        guard trip.etaSamples.isDue(elapsed: elapsed) else { return }
        let features = EtaFeatures(edgeDistance: edgeDistance, elapsedSeconds: Double(elapsed) / 1000, pace: trip.pace,
                                   mapLogSpeed: learner.current.paceMap.logSpeed(at: position, time: time))
        trip.etaSamples.append(EtaSampleList.Sample(time: time, features: features), elapsed: elapsed)
    }
}
