import Codec
import CommandLineKit
import CommandSupport
import Domain
import LZ4IO
import Runtime
import Simulation

/// `tripstream simulate`: a fleet load generator, to NDJSON files (for `replay` and benchmarks)
/// or to a broker.
enum SimulateCommand {
    static let spec = CommandSpec(
        name: "simulate",
        abstract: "Generate a fleet: geofences, trip commands and fixes with noise, offline replays, duplicates.",
        discussion: """
            With --out DIR, writes DIR/geofences.ndjson, DIR/commands.ndjson and DIR/fixes.ndjson (or .lz4 with \
            --compress) for `tripstream replay`. With --brokers, publishes to the topics instead, at --rate fixes \
            per second (0: as fast as possible). The same seed always gives the same records.
            """,
        options: simulationOptions + [
            .value("out", short: "o", valueName: "dir", help: "Write NDJSON files into this directory."),
            .flag("compress", help: "Write LZ4-frame-compressed files (.ndjson.lz4)."),
            .value("brokers", short: "b", valueName: "host:port,...", help: "Publish to these Kafka brokers.",
                   environment: "TRIPSTREAM_BROKERS"),
            .value("rate", valueName: "fixes/s", help: "Publishing rate with --brokers; 0 means unthrottled.",
                   default: "0"),
            .value("kafka-config", valueName: "file", help: "librdkafka properties file (SASL, TLS, ...)."),
            KafkaSettings.verbose,
        ] + TopicNames.options)

    static let simulationOptions: [OptionSpec] = [
        .value("users", short: "u", valueName: "count", help: "Drivers.", default: "1000"),
        .value("geofences", valueName: "count", help: "Geofences in the city.", default: "1000"),
        .value("duration", valueName: "duration", help: "Event-time span of the simulation.", default: "10m"),
        .value("interval", valueName: "duration", help: "Time between two fixes of a driver.", default: "5s"),
        .value("seed", valueName: "n", help: "Random seed.", default: "1"),
        .value("offline-chance", valueName: "p", help: "Chance per fix of going offline (replayed later).",
               default: "0.002"),
        .value("duplicate-chance", valueName: "p", help: "Chance per fix of a duplicate send.", default: "0.002"),
    ]

    static func settings(_ parsed: ParsedArguments) throws -> SimulationSettings {
        var settings = SimulationSettings()
        settings.users = try parsed.int("users", in: 1...10_000_000)
        settings.geofences = try parsed.int("geofences", in: 0...10_000_000)
        settings.duration = try parsed.duration("duration") / 1000
        settings.fixInterval = max(try parsed.duration("interval") / 1000, 1)
        settings.seed = UInt64(try parsed.int("seed", in: 0...Int.max))
        settings.offlineChance = try parsed.double("offline-chance")
        settings.duplicateChance = try parsed.double("duplicate-chance")
        guard settings.users > 0, settings.geofences >= 0, settings.duration > 0 else {
            throw CommandFailure("--users and --duration must be positive, --geofences not negative")
        }
        return settings
    }

    static func run(_ parsed: ParsedArguments) throws {
        let settings = try settings(parsed)
        if let directory = try parsed.optional("out", parsed.string) {
            let counts = try writeFiles(settings, to: directory, compress: try parsed.bool("compress"))
            Terminal.output("wrote \(counts.geofences) geofences, \(counts.commands) trip commands, \(counts.fixes) fixes to \(directory)")
        } else if parsed.contains("brokers") {
            try SimulatePublisher.publish(settings, parsed: parsed)
        } else {
            throw CommandFailure("simulate needs --out DIR or --brokers HOST:PORT")
        }
    }

    /// Writes the simulation as three NDJSON files.
    static func writeFiles(_ settings: SimulationSettings, to directory: String, compress: Bool) throws
        -> (geofences: Int, commands: Int, fixes: Int)
    {
        try ReplayJob.makeDirectory(directory)
        let suffix = compress ? ".ndjson.lz4" : ".ndjson"
        let geofences = try RecordFile(path: directory + "/geofences" + suffix, compress: compress)
        let commands = try RecordFile(path: directory + "/commands" + suffix, compress: compress)
        let fixes = try RecordFile(path: directory + "/fixes" + suffix, compress: compress)
        var simulator = FleetSimulator(settings: settings)
        var counts = (geofences: 0, commands: 0, fixes: 0)
        try simulator.encodeRecords { record, line in
            switch record {
            case .geofence:
                try geofences.writeLine(line)
                counts.geofences += 1
            case .command:
                try commands.writeLine(line)
                counts.commands += 1
            case .fix:
                try fixes.writeLine(line)
                counts.fixes += 1
            }
        }
        try geofences.close()
        try commands.close()
        try fixes.close()
        return counts
    }
}

/// An NDJSON output file, plain or LZ4.
final class RecordFile {
    private let plain: FileWriter?
    private let compressed: LZ4FileWriter?

    init(path: String, compress: Bool) throws {
        if compress {
            compressed = try LZ4FileWriter(path: path)
            plain = nil
        } else {
            plain = try FileWriter(path: path)
            compressed = nil
        }
    }

    func writeLine(_ bytes: [UInt8]) throws {
        if let plain {
            try plain.write(bytes)
            try plain.write(byte: UInt8(ascii: "\n"))
        } else if let compressed {
            try compressed.write(bytes)
            try compressed.write(byte: UInt8(ascii: "\n"))
        }
    }

    func close() throws {
        try plain?.close()
        try compressed?.close()
    }
}
