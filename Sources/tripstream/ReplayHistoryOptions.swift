import Codec
import CommandLineKit
import Domain
import Runtime

/// `tripstream replay --brokers B | --archive DIR --since T1 [--until T2]`: the options and the run of a replay
/// of the input topics' history, or of an archive of them.
enum ReplayHistoryOptions {
    /// The `--*-topic` options of the topics it reads.
    private static let topicOptions: Set<String> = ["locations-topic", "commands-topic", "geofences-topic"]

    static let specs: [OptionSpec] = KafkaSettings.options + [
        .value("archive", valueName: "dir",
               help: "Replay an archive written by `tripstream archive` (with --since) instead of files or topics."),
        .value("since", valueName: "time",
               help: "--brokers/--archive: the first Kafka record timestamp replayed, RFC 3339 (2026-06-03T00:00:00Z) or a "
                   + "duration before now (24h)."),
        .value("until", valueName: "time",
               help: "--brokers/--archive: replay records older than this (RFC 3339 or a duration before now). Default: up to "
                   + "the end offsets at start."),
        .flag("compress", help: "--brokers/--archive: write the output files LZ4-compressed (.ndjson.lz4)."),
        .value("to-topic-prefix", valueName: "prefix",
               help: "--brokers/--archive: produce the outputs to topics named PREFIX + each output topic "
                   + "(sandbox. → sandbox.tripstream.events, …; created if missing) on --brokers, instead of --out "
                   + "files. A prefix naming a production topic (an empty one) is refused."),
    ] + TopicNames.options.filter { topicOptions.contains($0.longName) }

    static func isRequested(_ parsed: ParsedArguments) -> Bool {
        ["brokers", "kafka-config", "archive", "since", "until"].contains { parsed.contains($0) }
    }

    static func run(_ parsed: ParsedArguments, settings: FoldSettings) throws {
        for option in ["commands", "fixes"] where parsed.contains(option) {
            throw CommandFailure("--\(option) is for a replay of files; a replay of the topics (--brokers) reads them")
        }
        guard parsed.contains("since") else { throw CommandFailure("a replay of the topics or an archive needs --since TIME") }
        let toTopics = parsed.contains("to-topic-prefix")
        if parsed.contains("archive"), parsed.contains("brokers"), !toTopics {
            throw CommandFailure("give --brokers (the topics) or --archive (an archive of them), not both, unless "
                + "--to-topic-prefix writes to the --brokers")
        }
        guard toTopics != parsed.contains("out") else {
            throw CommandFailure("give --out DIR (files) or --to-topic-prefix PREFIX (topics), one of them")
        }
        if toTopics, parsed.contains("compress") { throw CommandFailure("--compress is for --out files") }
        let destination: HistoryReplayOptions.Destination = toTopics
            ? .topics(prefix: try parsed.string("to-topic-prefix"), kafka: try KafkaSettings.configuration(parsed))
            : .files(directory: try parsed.string("out"), compressed: try parsed.bool("compress"))
        if parsed.contains("brokers") || parsed.contains("kafka-config") {
            try KafkaSettings.checkReachable(try KafkaSettings.configuration(parsed))
        }
        let now = WallClock.now()
        var options = HistoryReplayOptions(
            source: parsed.contains("archive")
                ? .archive(try parsed.string("archive")) : .brokers(try KafkaSettings.configuration(parsed)),
            since: try time(parsed, "since", now: now), destination: destination, settings: settings)
        if parsed.contains("until") {
            let until = try time(parsed, "until", now: now)
            guard until > options.since else { throw CommandFailure("--until must be later than --since") }
            options.until = until
        }
        for field in TopicNames.fields where topicOptions.contains(field.option) {
            options.topics[keyPath: field.path] = try parsed.string(field.option)
        }
        if parsed.contains("partitions") {
            do {
                options.partitions = try PartitionSelection.parse(try parsed.string("partitions"))
            } catch {
                throw CommandFailure(error)
            }
        }
        options.geofencesPath = try parsed.optional("geofences", parsed.string)
        if parsed.contains("threads") { options.threads = try parsed.int("threads", in: 1...1_024) }
        options.stateDirectory = try parsed.optional("state-dir", parsed.string)
        let summary: HistoryReplaySummary
        do {
            summary = try HistoryReplayJob.run(options, log: { Terminal.error($0) }) { fraction in
                Terminal.progress(fraction, label: "replaying")
            }
        } catch {
            Terminal.endProgress()
            throw CommandFailure(error)
        }
        Terminal.endProgress()
        report(summary.geofencesUnknownBefore, since: options.since)
        report(summary.cuts, since: options.since)
        var warnings = SetupWarnings(source: options.geofencesPath.map { "--geofences \($0)" }
            ?? "the topic \(options.topics.geofences)")
        for line in warnings.next(geofences: summary.replay.geofences, counters: summary.replay.processor) {
            Terminal.error(line)
        }
        guard !(try parsed.bool("quiet")) else { return }
        Terminal.output("partitions      \(summary.partitions.map(String.init).joined(separator: ","))")
        for line in summary.replay.lines { Terminal.output(line) }
        switch destination {
        case let .files(directory, compressed):
            Terminal.output("wrote           \(directory)/{events,eta,dead-letters,trip-summaries}.ndjson"
                + (compressed ? ".lz4" : ""))
        case let .topics(prefix, _):
            let topics = options.topics
            Terminal.output("produced to     " + [topics.events, topics.eta, topics.deadLetters, topics.tripSummaries]
                .map { prefix + $0 }.joined(separator: ", "))
        }
    }

    /// What compaction of the geofences topic lost, on stderr: the table before these records is unknown.
    private static func report(_ unknown: [(key: String, since: Int64)], since: Int64) {
        guard !unknown.isEmpty else { return }
        Terminal.error("geofences: \(unknown.count) keys have no record older than --since \(RFC3339.string(since)) "
            + "left in the compacted topic; before their earliest record their geofence is unknown and taken as "
            + "absent:")
        for entry in unknown.prefix(10) { Terminal.error("  \(entry.key) from \(RFC3339.string(entry.since))") }
        if unknown.count > 10 { Terminal.error("  … and \(unknown.count - 10) more") }
    }

    /// Partitions whose log starts after --since, on stderr: what they held before is gone.
    private static func report(_ cuts: [HistoryCut], since: Int64) {
        guard !cuts.isEmpty else { return }
        Terminal.error("warning: \(cuts.count) partitions start after --since \(RFC3339.string(since)): their earlier records "
            + "were removed (retention, compaction, or the dev broker's limit of about 5 MiB per partition), so this "
            + "replay may miss what they held:")
        for cut in cuts {
            Terminal.error("  \(cut.topic) partition \(cut.partition): first record at offset \(Int(cut.firstOffset).grouped) "
                + "(\(RFC3339.string(cut.firstTimestamp))), up to \(Int(cut.firstOffset).grouped) records before it gone")
        }
    }

    /// An RFC 3339 time, or a duration before `now`.
    private static func time(_ parsed: ParsedArguments, _ option: String, now: Int64) throws -> Int64 {
        let text = try parsed.string(option)
        if let ago = ValueSyntax.milliseconds(text) { return now - ago }
        var copy = text
        let parsedTime = copy.withUTF8 { RFC3339.parse(UnsafeRawBufferPointer($0)) }
        switch parsedTime {
        case let .success(millis): return millis
        case let .failure(failure):
            throw CommandFailure("--\(option) '\(text)' is neither an RFC 3339 time (2026-06-03T00:00:00Z) nor a "
                + "duration (24h): \(failure.message)")
        }
    }
}
