import CommandLineKit
import CommandSupport
import KafkaIO
import Runtime

/// `tripstream archive`: the input topics copied into time-partitioned LZ4 NDJSON files.
enum ArchiveCommand {
    /// The `--*-topic` options of the topics it reads.
    private static let topicOptions: Set<String> = ["locations-topic", "commands-topic", "geofences-topic"]

    static let spec = CommandSpec(
        name: "archive",
        abstract: "Copy the input topics into time-partitioned LZ4 NDJSON files; resumes where it stopped.",
        discussion: """
            Files: OUT/{locations,trip-commands,geofences}/date=YYYY-MM-DD/part-PPPPP-FIRST-NEXT.ndjson.lz4, with \
            the partition, the first offset and the next offset (last + 1) of the records inside; the date is the \
            UTC date of the records' Kafka timestamps (a file never spans two dates). A file is written as a hidden \
            .part-PPPPP-FIRST.ndjson.lz4.tmp, fsync'd and renamed when finished; a start deletes unfinished files \
            (their records are read again) and resumes each partition at the largest NEXT found, so a crash loses \
            and doubles nothing. No consumer group is joined and no offset committed (read_committed). \
            Lines, for every topic: {"offset":O,"timestamp":MS,"key":"...","value":{...}} with "value":null for a \
            null or empty value (a geofence delete); `tripstream replay --archive OUT --since T` reads them. A line \
            feed or carriage return inside a value becomes a space. One archive \
            process per OUT (OUT/.lock). Without --until-end it follows the topics until SIGTERM/SIGINT, then \
            finishes its open files.
            """,
        options: KafkaSettings.options + [
            .value("out", short: "o", valueName: "dir", help: "Archive directory (created if missing).",
                   required: true, environment: "TRIPSTREAM_ARCHIVE_DIR"),
            .flag("until-end", help: "Stop once every partition has reached the end it had at start."),
            .value("max-records", valueName: "count", help: "Records per file at most.", default: "1000000",
                   environment: "TRIPSTREAM_ARCHIVE_MAX_RECORDS"),
            .value("max-file-mb", valueName: "MiB", help: "Uncompressed MiB per file at most.", default: "256",
                   environment: "TRIPSTREAM_ARCHIVE_MAX_FILE_MB"),
            .value("idle-close", valueName: "duration",
                   help: "A file that got no record for this long is finished.", default: "60s",
                   environment: "TRIPSTREAM_ARCHIVE_IDLE_CLOSE"),
            .value("max-file-age", valueName: "duration", help: "A file open for this long is finished.",
                   default: "15m", environment: "TRIPSTREAM_ARCHIVE_MAX_FILE_AGE"),
            .flag("quiet", short: "q", help: "Print no summary."),
            .configFile(environment: "TRIPSTREAM_CONFIG"),
        ] + TopicNames.options.filter { topicOptions.contains($0.longName) })

    static func run(_ parsed: ParsedArguments) throws {
        ShutdownSignal.install(deadline: 60)
        var options = ArchiveOptions(
            kafka: try KafkaSettings.configuration(parsed), directory: try parsed.string("out"))
        for field in TopicNames.fields where topicOptions.contains(field.option) {
            options.topics[keyPath: field.path] = try parsed.string(field.option)
        }
        options.untilEnd = try parsed.bool("until-end")
        options.maxRecordsPerFile = try parsed.int("max-records", in: 1...1_000_000_000)
        options.maxBytesPerFile = try parsed.int("max-file-mb", in: 1...65_536) << 20
        options.idleClose = try parsed.duration("idle-close")
        options.maxFileAge = try parsed.duration("max-file-age")
        guard options.idleClose > 0, options.maxFileAge > 0 else {
            throw CommandFailure("--idle-close and --max-file-age must be positive")
        }
        try KafkaSettings.checkReachable(options.kafka)
        let started = WallClock.monotonic()
        let summary: ArchiveSummary
        do {
            let archiver = try Archiver(options: options, reader: try Archiver.makeReader(options),
                                        log: { Terminal.error($0) })
            summary = try archiver.run(shouldStop: { ShutdownSignal.isRequested })
        } catch {
            throw CommandFailure(error)
        }
        guard !(try parsed.bool("quiet")) else { return }
        let seconds = max(WallClock.monotonic() - started, 1e-9)
        for folder in ["locations", "trip-commands", "geofences"] {
            Terminal.output(folder.padded(16) + (summary.records[folder] ?? 0).grouped + " records")
        }
        Terminal.output("files".padded(16) + summary.filesFinished.grouped + " finished, "
            + summary.leftoversDeleted.grouped + " unfinished deleted")
        Terminal.output("throughput".padded(16) + Int(Double(summary.totalRecords) / seconds).grouped + " records/s, "
            + String(format1: Double(summary.bytes) / seconds / 1_048_576) + " MiB/s in "
            + String(format1: seconds) + " s")
    }
}
