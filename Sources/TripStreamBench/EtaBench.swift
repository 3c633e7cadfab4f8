import CHeapStats
import CommandSupport
import Domain
import Runtime

/// `tripstream-bench --eta`: what the learned ETA costs, on the bench's generated fleet.
///
/// Learns a fleet model from the workload itself (as `replay --eta-model-out` would), so that the
/// timed folds find their cells in it, then folds the workload in rounds that alternate three
/// settings: the √distance curve alone (no model), with the model (`--eta-model`), and learning one
/// (`--eta-model-out`). Alternated rounds, because this machine's speed drifts between minutes;
/// the medians and the per-round differences are what to read. Accuracy is measured elsewhere, on
/// real rides (`bench/eta_replay.py`).
enum EtaBench {
    private struct Variant {
        var name: String
        var settings: FoldSettings
        var seconds: [Double] = []
    }

    static func run(stages: BenchStages, runs: Int) {
        var learning = FoldSettings()
        learning.eta.learnsFleetModel = true
        let (model, fixes, tripFixes) = learnModel(stages: stages, settings: learning)
        var withModel = FoldSettings()
        withModel.eta.fleetModel = model
        Terminal.output("eta model       learned from the workload: \(Int(model.samples).grouped) checkpoint samples, "
            + "\(model.paceMap.cells.count.grouped) map entries, \(heapBytesPerEntry(of: model)) B of heap "
            + "each (24 B payload in a dictionary, 12 B per slot of the lookup table); \(tripFixes.grouped) of \(fixes.grouped) "
            + "fixes are on a trip with a destination")

        var variants = [Variant(name: "curve alone", settings: FoldSettings()),
                        Variant(name: "--eta-model", settings: withModel),
                        Variant(name: "learning", settings: learning)]
        for index in variants.indices { _ = stages.fold(settings: variants[index].settings) }  // warm-up
        for _ in 0..<runs {
            for index in variants.indices {
                let start = WallClock.monotonic()
                _ = stages.fold(settings: variants[index].settings)
                variants[index].seconds.append(WallClock.monotonic() - start)
            }
        }
        func nanoseconds(_ seconds: Double) -> Int { Int((seconds / Double(fixes) * 1e9).rounded()) }
        let base = variants[0].seconds
        for variant in variants {
            var line = "eta fold        \(variant.name.padded(12)) \(nanoseconds(BenchResult(seconds: variant.seconds, items: fixes).median)) ns per fix"
            if variant.name != variants[0].name {
                let differences = zip(variant.seconds, base).map { $0 - $1 }
                let ratios = zip(base, variant.seconds).map { String(format2: $0 / $1) }
                let perTripFix = Int((BenchResult.median(differences) / Double(max(tripFixes, 1)) * 1e9).rounded())
                line += "; against the curve alone, per round: \(differences.map(nanoseconds).map { ($0 >= 0 ? "+" : "") + "\($0)" }.joined(separator: " / ")) ns, "
                    + "throughput ratio \(ratios.joined(separator: " / ")); median \(perTripFix) ns per fix on a trip"
            }
            Terminal.output(line)
        }
        Terminal.output("eta fold        median of \(runs) alternated rounds over \(fixes.grouped) fixes (whole fold, history store included)")

        let without = stages.memoryPerUser()
        let with = stages.memoryPerUser(settings: withModel)
        Terminal.output("eta memory      per tracked user: \(without.bytesPerUser) B with the curve alone, "
            + "\(with.bytesPerUser) B with --eta-model (the model itself is shared, not per user)")
    }

    /// The model a fold of the workload learns, the workload's fixes, and how many of them are on a
    /// trip with a destination (an `updated_trip` each).
    private static func learnModel(stages: BenchStages, settings: FoldSettings)
        -> (model: FleetEtaModel, fixes: Int, tripFixes: Int)
    {
        let learned = stages.fold(keepEvents: true, settings: settings)
        defer { (learned.fold.history as? RocksHistoryStore)?.close() }  // the next fold opens the same store
        guard let learner = learned.fold.etaLearner else { preconditionFailure("a learning fold has a learner") }
        return (EtaLearner.merged(base: nil, [learner], expiringBefore: learned.fold.streamTime), learned.fixes,
                learned.events.lazy.filter { $0.type == .updatedTrip }.count)
    }

    /// Heap bytes per map entry of a model as reading its file builds it: the cells' dictionary
    /// (capacity reserved for the count, then entry by entry) and the lookup table made from it.
    static func heapBytesPerEntry(of model: FleetEtaModel) -> Int {
        let before = tripstream_heap_in_use()
        var cells: [UInt64: PaceCount] = [:]
        cells.reserveCapacity(model.paceMap.cells.count)
        for (key, count) in model.paceMap.cells { cells[key] = count }
        let copy = FleetEtaModel(paceMap: EtaPaceMap(cells: cells, fleet: model.paceMap.fleet), regimes: model.regimes,
                                 samples: model.samples, residuals: model.residuals)
        let after = tripstream_heap_in_use()
        withExtendedLifetime(copy) {}
        return (Int(after) - Int(before)) / max(model.paceMap.cells.count, 1)
    }
}
