#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Duration and distance to a trip's destination without a routing call per fix.
///
/// Remaining time ≈ A·√d: on real city rides the time left grows with the square root of the
/// straight-line distance left (short remainders are dominated by stops and the last turns, long
/// ones by faster roads). ln A starts at a fitted prior and learns from this user's arrived trips,
/// which recorded (time, ½·ln d) checkpoints along the way. Measured against a straight-line /
/// constant-speed baseline by `bench/eta_model_study.py` and `bench/real-trajectories.sh`.
public enum EtaModel {
    /// - Parameter centerDistance: straight-line meters from the user to the destination's center.
    public static func estimate(centerDistance: Double, mode: TravelMode, learning: EtaLearning,
                                settings: EtaSettings) -> Eta
    {
        let d = max(centerDistance, settings.distanceFloor)
        let seconds = max(settings.minimumSeconds, exp(logScale(learning, settings)) * d.squareRoot()
                          * settings.shrink * settings.modeFactor(mode))
        return Eta(durationSeconds: Int32(min(seconds.rounded(), Double(Int32.max))),
                   distanceMeters: distanceMeters(centerDistance, settings))
    }

    /// ln A of the curve A·√d: the prior's, moved by what the user's arrived trips taught.
    @inline(__always)
    static func logScale(_ learning: EtaLearning, _ settings: EtaSettings) -> Double {
        (Double(learning.logScaleSum) + settings.priorWeight * settings.logScalePrior)
            / (Double(learning.observations) + settings.priorWeight)
    }

    /// `eta.distance`: the straight line times the road's circuity.
    @inline(__always)
    static func distanceMeters(_ centerDistance: Double, _ settings: EtaSettings) -> Int32 {
        Int32(min((max(centerDistance, 0) * settings.circuity).rounded(), Double(Int32.max)))
    }

    /// Records a learning checkpoint when one is due.
    public static func recordCheckpoint(centerDistance: Double, at time: UnixMillis, trip: inout TripProgress,
                                        settings: EtaSettings)
    {
        let elapsed = time - trip.snapshot.startedAt
        guard elapsed >= trip.nextCheckpointAt else { return }
        let d = max(centerDistance, settings.distanceFloor)
        trip.checkpoints.append(TripProgress.Checkpoint(
            elapsedSeconds: Int32(clamping: elapsed / 1000), halfLogDistance: Float(0.5 * log(d))))
        if trip.checkpointInterval == 0 { trip.checkpointInterval = settings.checkpointInterval }
        trip.nextCheckpointAt = elapsed + trip.checkpointInterval
        if trip.checkpoints.count == CheckpointList.capacity {
            // Keep memory bounded on long trips: thin to every other checkpoint, sample half as often.
            trip.checkpoints.thin()
            trip.checkpointInterval *= 2
            trip.nextCheckpointAt = Int64(trip.checkpoints[3].elapsedSeconds) * 1000 + trip.checkpointInterval
        }
    }

    /// Learns from a trip that arrived at `arrival`: each checkpoint's actual time to arrival.
    public static func learn(from trip: TripProgress, arrival: UnixMillis, into learning: inout EtaLearning) {
        let startedAt = trip.snapshot.startedAt
        for checkpoint in trip.checkpoints {
            let at = startedAt + Int64(checkpoint.elapsedSeconds) * 1000
            guard arrival > at else { continue }
            learning.logScaleSum += Float(log(Double(arrival - at) / 1000) - Double(checkpoint.halfLogDistance))
            learning.observations &+= 1
        }
    }
}
