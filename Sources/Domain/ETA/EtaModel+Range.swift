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
        guard let box = settings.fleetModelReference() else {
            var eta = estimate(centerDistance: centerDistance, mode: mode, learning: learning, settings: settings)
            let curve = Double(eta.durationSeconds)
            eta.durationLowSeconds = wholeSeconds(curve * settings.priorLowFactor, atLeast: 0)
            eta.durationHighSeconds = wholeSeconds(curve * settings.priorHighFactor, atLeast: curve)
            return eta
        }
        let logModeFactor = settings.logModeFactor(mode), weight = settings.learnedWeight
        let minimumSeconds = settings.minimumSeconds, distance = distanceMeters(centerDistance, settings)
        let logCurve = logScale(learning, settings) + settings.logShrink
            + 0.5 * naturalLog(max(centerDistance, settings.distanceFloor))
        return box.estimate(logCurve: logCurve, logModeFactor: logModeFactor, weight: weight,
                            minimumSeconds: minimumSeconds, distanceMeters: distance, edgeDistance: edgeDistance,
                            position: position, destination: destination, time: time,
                            elapsedSeconds: elapsedSeconds, pace: pace)
    }

    /// `seconds` rounded half away from zero (as `rounded()`, without its libm call on every fix), at
    /// least `floor` (≥ 0) and at most `Int32.max`.
    @inline(__always)
    static func wholeSeconds(_ seconds: Double, atLeast floor: Double) -> Int32 {
        let clamped = min(max(seconds, floor), Double(Int32.max))
        guard clamped >= 0 else { return 0 }  // NaN
        let whole = Int32(clamped)
        return clamped - Double(whole) >= 0.5 ? whole + 1 : whole
    }
}

extension FleetModelBox {
    /// The fleet model's part of `EtaModel.estimateWithRange`, a method of the box that holds the
    /// model: called through the settings' reference, the model is read where it lies. (Bound out of
    /// the settings, the optimizer copied the whole settings struct on every fix to keep it alive.)
    func estimate(logCurve: Double, logModeFactor: Double, weight w: Double, minimumSeconds: Double,
                  distanceMeters: Int32, edgeDistance: Double, position: Coordinate, destination: Coordinate?,
                  time: UnixMillis, elapsedSeconds: Double, pace: TripPace) -> Eta
    {
        let paces = model.logSpeeds(at: position, destination: destination, time: time)
        let features = EtaFeatures(TripFeatures(edgeDistance: edgeDistance, elapsedSeconds: elapsedSeconds, pace: pace),
                                   mapLogSpeed: paces.here, destinationLogSpeed: paces.destination)
        let learned = model.estimate(features)
        // The fleet taught the model at a car's pace; the curve already has the mode's factor.
        let blended = exp(w * (learned.logSeconds + logModeFactor) + (1 - w) * (logCurve + logModeFactor))
        let seconds = min(max(minimumSeconds, blended), 86_400)
        return Eta(durationSeconds: EtaModel.wholeSeconds(seconds, atLeast: 0), distanceMeters: distanceMeters,
                   durationLowSeconds: EtaModel.wholeSeconds(min(seconds * learned.lowFactor, seconds), atLeast: 0),
                   durationHighSeconds: EtaModel.wholeSeconds(max(seconds * learned.highFactor, seconds), atLeast: 0))
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
