import CommandLineKit
import CommandSupport
import Domain
import Foundation
import Runtime
import Simulation

/// `tripstream-bench`: throughput of the codecs, the fold and the whole replay path on a
/// generated fleet, next to Foundation's JSONDecoder decoding the same fixes, in one run.
enum BenchCommand {
    static let spec = CommandSpec(
        name: "tripstream-bench",
        abstract: "Throughput of decode, fold, encode and the whole replay path, with a JSONDecoder baseline.",
        discussion: """
            Generates a fleet in memory (by default the quick set, under a minute: 20,000 users, 10,000 geofences, \
            a third of users on trips, offline gaps replayed late, duplicates; --full: 100,000 users), then times \
            each stage --runs times after one warm-up and \
            reports medians, and the ratio of the whole replay path (files in, events out, as `tripstream replay` on \
            --threads threads) to the baseline measured in the same run: JSONDecoder decoding each fix into a \
            Decodable struct of its fields, createdAt kept as a String. --dense-city measures a geofence-dense city \
            instead (about 3 events per fix); --lookup-sweep the spatial lookup alone as the table grows. \
            Also reports the heap bytes per tracked user once every user is folded. Build with -c release. \
            The work files (gigabytes at the full sizes) are removed at the end unless --keep.
            """,
        options: [
            .value("users", short: "u", valueName: "count",
                   help: "Users in the fleet. Default: 20,000, 2,000 with --dense-city; with --full 100,000 and 10,000."),
            .flag("full", help: "The full set: 100,000 users (10,000 with --dense-city), 5 runs, 300,000 baseline fixes: "
                + "minutes. Default: the quick set, 20,000 users (2,000), 3 runs, 100,000 baseline fixes."),
            .flag("keep", help: "Keep the work files (workload, outputs, history stores) in --work-dir."),
            .value("geofences", valueName: "count", help: "Geofences.", default: "10000"),
            .value("fixes-per-user", valueName: "count", help: "Fixes per user (one every 5 s).", default: "20"),
            .value("fixes", valueName: "count", help: "Fixes in all (sets --fixes-per-user to this over --users)."),
            .flag("dense-city", help: "A geofence-dense city: --geofences circles and squares of radius 50–300 m over "
                + "13 × 10 km (about 3 events per fix at 10,000), 2,000 drivers and 40,000 fixes (--full: 10,000 and "
                + "200,000) unless --users or --fixes say otherwise."),
            .flag("lookup-sweep", help: "Only time the spatial lookup at 10k, 100k and 1M geofences at the dense "
                + "city's density (the area grows with the count)."),
            .value("threads", valueName: "count", help: "Threads of the replay path. Default: the cores available."),
            .value("runs", valueName: "count", help: "Timed runs per stage (after one warm-up). Default: 3; 5 with --full."),
            .value("baseline-fixes", valueName: "count",
                   help: "Fixes decoded by JSONDecoder per run. Default: 100,000; 300,000 with --full."),
            .value("work-dir", valueName: "dir",
                   help: "Where the replay stage writes its files (what it made there is removed at the end unless "
                       + "--keep). Default: $TMPDIR/tripstream-bench-PID."),
            .repeatable("stage", valueName: "name",
                        help: "Only these stages (jsondecoder, decode, fold, seal, encode, replay-path); default all."),
            .flag("pipeline", help: "Also measure the Kafka pipeline through an embedded dev broker."),
            .value("pipeline-threads", valueName: "n,...",
                   help: "Fold thread counts the pipeline is measured with, each on a fresh broker; default: 1 and the cores available."),
            .value("latency-rate", valueName: "fixes/s",
                   help: "Fixes per second of the pipeline's latency probe; default: half the throughput measured. "
                       + "A fixed rate compares two builds at the same load."),
            .flag("history", help: "Only measure what the replay horizon costs: memory and disk per user, a late "
                + "buffer's refold, restore time."),
            .value("history-users", valueName: "count", help: "Users of the --history measurement.", default: "20000"),
            .value("history-minutes", valueName: "count", help: "Minutes of 15 s fixes each of them holds.",
                   default: "60"),
            .flag("geofence-table", help: "Only load a table of 1,000,000 circles and 10,000 polygons and report its memory."),
            .flag("eta", help: "Only measure what the learned ETA costs: a model learned from the fleet, then folds "
                + "alternating the sqrt curve alone, --eta-model and learning (--eta-model-out), --runs rounds; ns "
                + "per fix, the model's bytes per map entry, memory per user. Accuracy: bench/eta_replay.py."),
            .flag("soak", help: "Only fold --soak-users users for --soak-minutes and report memory every 30 s."),
            .value("soak-users", valueName: "count", help: "Users of --soak.", default: "1000000"),
            .value("soak-minutes", valueName: "minutes", help: "Wall-clock minutes of --soak.", default: "10"),
        ])

    static func run(_ parsed: ParsedArguments) throws {
        let work = BenchWorkFiles(directory: try parsed.optional("work-dir", parsed.string) ?? BenchWorkFiles.defaultDirectory)
        let keep = try parsed.bool("keep")
        defer {
            if keep { Terminal.error("work files kept in \(work.directory)") } else { work.removeCreated() }
        }
        try run(parsed, workDirectory: work.directory)
    }

    private static func run(_ parsed: ParsedArguments, workDirectory: String) throws {
        let full = try parsed.bool("full")
        #if DEBUG
        Terminal.error("warning: debug build; measure with `swift build -c release`")
        #endif
        if try parsed.bool("geofence-table") {
            ScaleBench.geofenceTable(circles: 1_000_000, polygons: 10_000)
            return
        }
        if try parsed.bool("soak") {
            try ScaleBench.soak(users: try parsed.int("soak-users", in: 1...10_000_000),
                                minutes: Double(try parsed.int("soak-minutes", in: 1...1_440)),
                                workDirectory: workDirectory + "/soak")
            return
        }
        if try parsed.bool("history") {
            let bench = HistoryBench(users: try parsed.int("history-users", in: 1...10_000_000), minutes: try parsed.int("history-minutes", in: 1...10_080),
                                     workDirectory: workDirectory + "/history")
            try bench.run()
            return
        }
        var settings = SimulationSettings()
        let dense = try parsed.bool("dense-city")
        if dense {
            settings.cityArea = CityArea(eastWest: 13_000, northSouth: 10_000)
            settings.circleRadius = 50...300
            settings.squareHalfSide = 50...300
        }
        settings.geofences = try parsed.int("geofences", in: 0...10_000_000)
        if try parsed.bool("lookup-sweep") {
            if !dense { settings.cityArea = CityArea(eastWest: 13_000, northSouth: 10_000) }
            settings.circleRadius = 50...300
            settings.squareHalfSide = 50...300
            LookupSweep.run(base: settings, counts: [10_000, 100_000, 1_000_000], lookups: 1_000_000)
            return
        }
        settings.users = parsed.contains("users") ? try parsed.int("users", in: 1...10_000_000)
            : (dense ? 10_000 : 100_000) / (full ? 1 : 5)
        var fixesPerUser = try parsed.int("fixes-per-user", in: 1...100_000)
        if parsed.contains("fixes") {
            fixesPerUser = max(1, try parsed.int("fixes", in: 1...1_000_000_000) / settings.users)
        }
        settings.duration = Int64(fixesPerUser - 1) * settings.fixInterval
        settings.offlineChance = 0.002
        settings.duplicateChance = 0.002
        let runs = parsed.contains("runs") ? try parsed.int("runs", in: 1...1_000) : full ? 5 : 3
        let workload = BenchWorkload.generate(settings)
        Terminal.output("workload        \(settings.users) users, \(settings.geofences) geofences, \(workload.fixLines.count) fixes, \(workload.commandLines.count) trip commands (\(workload.fixBytes / 1_000_000) MB of fixes)")

        let threads = parsed.contains("threads") ? try parsed.int("threads", in: 1...1_024) : ReplayOptions.availableCores
        let stages = BenchStages(workload: workload, workDirectory: workDirectory,
                                 baselineFixes: parsed.contains("baseline-fixes")
                                     ? try parsed.int("baseline-fixes", in: 1...100_000_000) : full ? 300_000 : 100_000, threads: threads)
        if try parsed.bool("eta") {
            EtaBench.run(stages: stages, runs: runs)
            return
        }
        var results: [(String, BenchResult)] = []
        let only = Set(parsed.strings("stage"))
        for stage in stages.all where only.isEmpty || only.contains(stage.name.replacingOccurrences(of: " ", with: "-")) {
            let result = try BenchResult.measure(runs: runs, prepare: stage.prepare, stage.run)
            results.append((stage.name, result))
            Terminal.output("\(stage.name.padded(16))\(result.summary(unit: stage.unit))")
        }
        if let baseline = results.first(where: { $0.0 == "jsondecoder" })?.1.medianRate,
            let whole = results.first(where: { $0.0 == "replay path" })?.1.medianRate
        {
            Terminal.output("ratio           replay path / JSONDecoder = \(String(format1: whole / baseline))× (median of \(runs) runs each; replay on \(threads) threads, JSONDecoder on one)")
        }
        if let replay = BenchStages.lastReplay, replay.fold.fixes > 0 {
            Terminal.output("events          \(String(format2: Double(replay.fold.events) / Double(replay.fold.fixes))) per fix in the replay path (\(replay.fold.events.grouped) events)")
        }
        let memory = stages.memoryPerUser()
        Terminal.output("memory          \(memory.bytesPerUser) bytes per tracked user (\(memory.users) users, heap in use after folding every fix); of that, the history store's fixed buffers: \(memory.storeBytes / 1_000_000) MB (\(memory.storeBytes / max(memory.users, 1)) B per user here), hot state \(memory.bytesPerUser - memory.storeBytes / max(memory.users, 1)) B per user")
        if try parsed.bool("pipeline") {
            try PipelineBench.run(parsed: parsed, workload: workload)
        }
    }
}
