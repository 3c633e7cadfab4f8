/// A partition's learning of the fleet model, for `replay --eta-model-out`: fed by the fold in event
/// time (every step of a trip with a destination, every arrival), read once the replay is done.
///
/// Learning never shapes this run's ETAs (they read `EtaSettings.fleetModel`, fixed for the run), so
/// an ETA still depends only on its user's inputs, whatever their arrival order. The learner's own
/// result depends on the partition's fold order, which no thread count changes; a refold after a
/// late input learns that stretch again.
///
/// - Important: a class so the fold's steps can write to it through their (immutable) context. It is
///   `@unchecked Sendable`, safe by confinement: `PartitionFold.init` is its only maker and keeps it in
///   that fold's context, so only that partition's fold steps write it, on the thread folding the
///   partition, one at a time; a driver reads it (`PartitionFold.etaLearner`) once that fold is done,
///   after joining the threads that folded (`ReplayJob`, `tripstream-bench --eta`).
public final class EtaLearner: @unchecked Sendable {
    /// The loaded model plus what this partition learned: what residuals and the map's pace are read from.
    public private(set) var current: FleetEtaModel
    /// What this partition learned only: added to the loaded model, in partition order, for the file.
    public private(set) var learned = FleetEtaModel()

    public init(startingFrom model: FleetEtaModel?) {
        current = model ?? FleetEtaModel()
    }

    public func observeStep(speed: Double, at position: Coordinate, time: UnixMillis) {
        current.observeStep(speed: speed, at: position, time: time)
        learned.observeStep(speed: speed, at: position, time: time)
    }

    /// A trip arrived at `arrival`: its samples' features and the time each actually had left.
    public func learn(_ samples: EtaSampleList, arrival: UnixMillis) {
        let checkpoints = samples.map { sample in
            (features: sample.features, remainingSeconds: Double(arrival - sample.time) / 1000)
        }
        guard !checkpoints.isEmpty else { return }
        learned.learn(checkpoints, residualsAgainst: current)
        current.learn(checkpoints)
    }

    /// The file's model: `base` (the loaded one, or none) plus each learner's, in the order given.
    public static func merged(base: FleetEtaModel?, _ learners: [EtaLearner], expiringBefore time: UnixMillis)
        -> FleetEtaModel
    {
        var model = base ?? FleetEtaModel()
        for learner in learners { model.merge(learner.learned) }
        model.expire(before: time)
        return model
    }
}
