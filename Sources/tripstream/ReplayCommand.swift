import CommandLineKit
import Domain
import LZ4IO
import Runtime

/// `tripstream replay`: the fold over files, for analysts. No broker needed.
enum ReplayCommand {
    static let spec = CommandSpec(
        name: "replay",
        abstract: "Fold NDJSON files (plain or .lz4), or the topics' history, into events, ETA updates and dead letters.",
        discussion: """
            Reads the geofences first, then trip commands and fixes merged by event time (the fixes file's order \
            is its arrival order; each command goes before the first fix not older than it, whatever its place in \
            the commands file). Late fixes within the replay horizon are folded at their place. Writes DIR/events.ndjson, \
            DIR/eta.ndjson and DIR/dead-letters.ndjson. Processing time is the stream time, so two runs over the \
            same inputs write byte-identical files, whatever --threads. \
            With --brokers (or --archive DIR, what `tripstream archive` wrote) and --since instead of files, it \
            folds the input topics' records from the first whose Kafka timestamp is not older than --since to the \
            last before --until (or the end offsets at start), one fold per Kafka partition (on --threads threads, \
            written in ascending order), each as --partitions 1 folds a file of its records, with the geofence table \
            in force at each record's timestamp, or the table of --geofences FILE for the whole run (what-if); it joins no consumer group, commits nothing, and writes only --out or --to-topic-prefix.
            """,
        options: [
            .value("geofences", short: "g", valueName: "file",
                   help: "Geofences, one per line (plain or LZ4). With --brokers/--archive: this table replaces the "
                       + "geofences topic's for the whole run (the what-if; the topic is then not read)."),
            .value("commands", short: "c", valueName: "file", help: "Trip commands, one per line (plain or LZ4)."),
            .value("fixes", short: "f", valueName: "file", help: "Location fixes, one per line (plain or LZ4)."),
            .value("out", short: "o", valueName: "dir", help: "Output directory (created if missing)."),
            BoundedDurationOption.replayHorizon.spec(environment: nil),
            BoundedDurationOption.maxClockSkew.spec(environment: nil),
        ] + TripDefaultOptions.specs(environment: false)
            + StopDetectionOptions.specs(environment: false) + EtaModelOptions.specs(environment: false) + [
            .value("threads", valueName: "count",
                   help: "Threads folding the partitions, each partition on one (the output is the same for any count; "
                       + "with --brokers/--archive, each thread reads its Kafka partitions itself). Default: the cores "
                       + "available."),
            .value("partitions", valueName: "count|list",
                   help: "Files: the count of partitions the users are split over by Kafka's default partitioner "
                       + "(murmur2 of the userId), each with its own stream time, as the service's topics split them "
                       + "(default 12). --brokers: the Kafka partitions folded, e.g. 0-5, 3 or 0,2,4-6 (default all)."),
            .value("state-dir", valueName: "dir",
                   help: "Where users' history is kept during the replay (removed at the end). Default: DIR/.history."),
            .repeatable("set", valueName: "name=value",
                        help: "What-if: override a fold setting (repeatable), e.g. --set hysteresis-minimum=25 "
                            + "--set trip-expiry=2h. Settings: \(FoldSettingOverrides.names)."),
            .value("eta-model-out", valueName: "file",
                   help: "Write the fleet ETA model learned from the replayed inputs (and --eta-model's) to FILE "
                       + "(schemas/eta-model.md), for --eta-model of a later replay, run or demo."),
            .flag("quiet", short: "q", help: "Print no summary."),
        ] + ReplayHistoryOptions.specs)

    static func run(_ parsed: ParsedArguments) throws {
        StoppedRunCleanup.install()
        var settings = FoldSettings()
        settings.replayHorizon = try BoundedDurationOption.replayHorizon.read(parsed)
        settings.maxClockSkew = try BoundedDurationOption.maxClockSkew.read(parsed)
        try TripDefaultOptions.read(parsed, into: &settings)
        try StopDetectionOptions.read(parsed, into: &settings)
        try EtaModelOptions.read(parsed, into: &settings)
        try FoldSettingOverrides.apply(parsed.strings("set"), to: &settings)  // what-if: last word
        if ReplayHistoryOptions.isRequested(parsed) { return try ReplayHistoryOptions.run(parsed, settings: settings) }
        for option in ["geofences", "fixes", "out"] where !parsed.contains(option) {
            throw CommandFailure("replay needs --\(option) (or --brokers B / --archive DIR with --since T to replay history)")
        }
        for option in ["compress", "to-topic-prefix"] where parsed.contains(option) {
            throw CommandFailure("--\(option) is for a replay of history (--brokers or --archive)")
        }
        var options = ReplayOptions(
            geofencesPath: try parsed.string("geofences"), commandsPath: try parsed.optional("commands", parsed.string),
            fixesPath: try parsed.string("fixes"), outputDirectory: try parsed.string("out"), settings: settings)
        options.stateDirectory = try parsed.optional("state-dir", parsed.string)
        options.etaModelOutPath = try parsed.optional("eta-model-out", parsed.string)
        if parsed.contains("partitions") { options.partitions = try parsed.int("partitions", in: 1...10_000) }
        if parsed.contains("threads") { options.threads = try parsed.int("threads", in: 1...1_024) }
        let summary: ReplaySummary
        do {
            summary = try ReplayJob.run(options) { progress in
                if let fraction = progress.fraction { Terminal.progress(fraction, label: "replaying") }
            }
        } catch {
            Terminal.endProgress()
            throw CommandFailure(error)
        }
        Terminal.endProgress()
        var warnings = SetupWarnings(source: "--geofences \(options.geofencesPath)")
        for line in warnings.next(geofences: summary.geofences, counters: summary.processor) { Terminal.error(line) }
        if !(try parsed.bool("quiet")) {
            for line in summary.lines { Terminal.output(line) }
            Terminal.output("wrote           \(options.outputDirectory)/{events,eta,dead-letters}.ndjson")
        }
    }
}
