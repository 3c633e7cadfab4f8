import CommandLineKit

/// Output formats of the sample `replay` command, to exercise enum options.
enum OutputFormat: String, CaseIterable, Sendable {
    case ndjson
    case avro
    case table
}

/// A small `tripstream`-like program shared by the tests.
enum TestProgram {
    static let run = CommandSpec(
        name: "run",
        abstract: "The service, against real brokers.",
        discussion: "Consumes fixes, folds them into trips and geofence events, and publishes the events.",
        options: [
            .value(
                "brokers", short: "b", valueName: "host:port,...", help: "Kafka bootstrap servers.",
                default: "localhost:9092", environment: "TRIPSTREAM_BROKERS"),
            .value("group-id", help: "Consumer group id.", required: true, environment: "TRIPSTREAM_GROUP_ID"),
            .value("commit-interval", valueName: "duration", help: "How often to checkpoint.", default: "5s"),
            .value(
                "snapshot-size", valueName: "size", help: "Largest state snapshot to keep in memory.",
                default: "64MiB"),
            .value("workers", short: "w", help: "Worker threads.", default: "2"),
            .value("ratio", help: "Sampling ratio.", default: "1.0"),
            .value("format", help: "Event format.", choices: OutputFormat.self, default: .ndjson),
            .repeatable("topic", short: "t", help: "Topics to consume."),
            .flag("verbose", short: "v", help: "Log every fix.", environment: "TRIPSTREAM_VERBOSE"),
            .flag("quiet", short: "q", help: "Log only errors."),
            .flag("color", help: "Colour the output.", default: true, inversion: true),
            .configFile(),
        ])

    static let replay = CommandSpec(
        name: "replay",
        abstract: "Fold NDJSON files (plain or .lz4) into output files.",
        options: [
            .value("output", short: "o", valueName: "path", help: "Output file.", required: true),
            .value("limit", help: "Stop after this many fixes."),
        ],
        positionals: [PositionalSpec("files", help: "Input files.", isRequired: true, isRepeating: true)])

    static let bench = CommandSpec(name: "bench", abstract: "Throughput of the fold, the codecs and the pipeline.")

    static let program = CommandLineProgram(
        name: "tripstream",
        abstract: "Trip and geofence events from vehicle GPS fixes.",
        commands: [run, replay, bench])

    /// Parses with a group id supplied through the environment, so tests of other options stay short.
    static func parseRun(_ arguments: [String], environment: [String: String] = [:]) throws -> ParsedArguments {
        let environment = environment.merging(["TRIPSTREAM_GROUP_ID": "g1"]) { given, _ in given }
        return try program.parse(arguments: ["run"] + arguments, environment: environment)
    }

    /// The `CommandLineError` thrown by `body`, or `nil` if it succeeded or threw something else.
    static func usageError(_ body: () throws -> Void) -> CommandLineError? {
        do {
            try body()
            return nil
        } catch {
            return error as? CommandLineError
        }
    }
}
