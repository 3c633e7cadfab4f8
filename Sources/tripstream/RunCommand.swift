import CommandLineKit
import Domain
import KafkaIO
import Runtime

#if canImport(Glibc)
import Glibc
#endif

/// `tripstream run`: the service against real brokers.
enum RunCommand {
    static let spec = CommandSpec(
        name: "run",
        abstract: "The service: consume fixes and trip commands, publish events exactly once.",
        discussion: """
            Run several instances with the same --group to share the partitions. Every option can also come from \
            an environment variable (TRIPSTREAM_<OPTION>) or a --config file of `option = value` lines. Kafka \
            client properties (SASL, TLS, ...) come from a librdkafka properties file given with --kafka-config.
            """,
        options: KafkaSettings.options + [
            .value("group", short: "g", valueName: "id", help: "Consumer group shared by the instances.",
                   default: "tripstream", environment: "TRIPSTREAM_GROUP"),
            .value("state-dir", valueName: "dir", help: "Local snapshots of the partitions' state.",
                   default: "./tripstream-state", environment: "TRIPSTREAM_STATE_DIR"),
            .value("instance-id", valueName: "id",
                   help: "Stable id of this instance (transactional id); default: derived from host and state dir.",
                   environment: "TRIPSTREAM_INSTANCE_ID"),
            .value("commit-interval", valueName: "duration", help: "Transaction commit interval (caught up with the inputs, a quarter of it when the last commit is done).", default: "100ms",
                   environment: "TRIPSTREAM_COMMIT_INTERVAL"),
            .value("snapshot-interval", valueName: "duration", help: "Local snapshot interval.", default: "30s",
                   environment: "TRIPSTREAM_SNAPSHOT_INTERVAL"),
            .value("merge-wait", valueName: "duration",
                   help: "How long fixes or trip commands wait for the other topic before being folded anyway.",
                   default: "2s", environment: "TRIPSTREAM_MERGE_WAIT"),
            BoundedDurationOption.replayHorizon.spec(environment: "TRIPSTREAM_REPLAY_HORIZON"),
            BoundedDurationOption.maxClockSkew.spec(environment: "TRIPSTREAM_MAX_CLOCK_SKEW"),
        ] + TripDefaultOptions.specs(environment: true)
            + StopDetectionOptions.specs(environment: true) + EtaModelOptions.specs(environment: true) + [
            .value("idle-advance", valueName: "duration",
                   help: "A partition without inputs for this long has its stream time moved to the wall clock less "
                       + "this, so dwell and trip-expiry timers fire without waiting for its next fix (0: never).",
                   default: "30s", environment: "TRIPSTREAM_IDLE_ADVANCE"),
            .value("shutdown-timeout", valueName: "duration",
                   help: "Longest graceful shutdown after SIGTERM/SIGINT; past it the process exits with status 2 and "
                       + "the open transaction is left to the broker's transaction timeout.",
                   default: "30s", environment: "TRIPSTREAM_SHUTDOWN_TIMEOUT"),
            .value("partitions", valueName: "count", help: "Partitions of topics created at start.", default: "12",
                   environment: "TRIPSTREAM_PARTITIONS"),
            .value("threads", short: "t", valueName: "count",
                   help: "Threads folding the owned partitions, each partition on one of them; default: the cores "
                       + "available (\(RuntimeOptions.availableCores) here).",
                   environment: "TRIPSTREAM_THREADS"),
            .value("max-pending-inputs", valueName: "count",
                   help: "Fetched inputs a partition may hold unfolded before its fetching is paused (resumed at half).",
                   default: "20000", environment: "TRIPSTREAM_MAX_PENDING_INPUTS"),
            .value("max-transaction-mb", valueName: "MiB",
                   help: "Outputs a transaction may gather while the previous one commits; at this bound folding "
                       + "waits for the commit.",
                   default: "32", environment: "TRIPSTREAM_MAX_TRANSACTION_MB"),
            .flag("send-outputs-early",
                  help: "Send outputs into the open transaction while folding rather than at its seal: a shorter "
                      + "commit. Only for brokers that abort transactions (Kafka): on the dev broker, which cannot, "
                      + "a crash leaves more rolled-back outputs visible.",
                  environment: "TRIPSTREAM_SEND_OUTPUTS_EARLY"),
            .value("metrics-port", valueName: "port", help: "Prometheus /metrics, /health and /ready port (0: none).",
                   default: "9464", environment: "TRIPSTREAM_METRICS_PORT"),
            .value("metrics-address", valueName: "ipv4", help: "Address the metrics endpoint listens on.",
                   default: "0.0.0.0", environment: "TRIPSTREAM_METRICS_ADDRESS"),
            .configFile(environment: "TRIPSTREAM_CONFIG"),
        ] + TopicNames.options)

    static func run(_ parsed: ParsedArguments) throws {
        let shutdownTimeout = try parsed.duration("shutdown-timeout")
        guard shutdownTimeout > 0, shutdownTimeout <= 3_600_000 else {
            throw CommandFailure("--shutdown-timeout must be more than 0 and at most 1h, got \(shutdownTimeout / 1000) s")
        }
        ShutdownSignal.install(deadline: Double(shutdownTimeout) / 1000)
        let options = try options(parsed)
        try KafkaSettings.checkReachable(options.kafka)
        let metrics = RuntimeMetrics(stateDirectory: options.stateDirectory)
        let port = try parsed.int("metrics-port", in: 0...65_535)
        if port > 0 {
            let address = try parsed.string("metrics-address")
            let server = try MetricsServer(address: address, port: UInt16(port), metrics: metrics)
            server.start()
            Terminal.error("metrics on http://\(address):\(server.port)/metrics")
        }
        Terminal.error("kafka client: \(options.kafka)")
        SetupWarningWatch.start(metrics: metrics, geofencesTopic: options.topics.geofences) { Terminal.error($0) }
        let runtime = StreamRuntime(options: options, metrics: metrics, log: { Terminal.error($0) },
                                    shouldStop: { ShutdownSignal.isRequested })
        try runtime.run()
    }

    static func options(_ parsed: ParsedArguments) throws -> RuntimeOptions {
        let kafka = try KafkaSettings.configuration(parsed)
        let stateDirectory = try parsed.string("state-dir")
        let group = try parsed.string("group")
        let instance = try parsed.optional("instance-id", parsed.string) ?? defaultInstanceId(stateDirectory)
        var options = RuntimeOptions(kafka: kafka, stateDirectory: stateDirectory, instanceId: instance)
        options.group = group
        options.topics = try TopicNames.topics(parsed)
        options.commitInterval = try parsed.duration("commit-interval")
        options.snapshotInterval = try parsed.duration("snapshot-interval")
        options.mergeWait = try parsed.duration("merge-wait")
        options.idleAdvance = try parsed.duration("idle-advance")
        options.settings.replayHorizon = try BoundedDurationOption.replayHorizon.read(parsed)
        options.settings.maxClockSkew = try BoundedDurationOption.maxClockSkew.read(parsed)
        try TripDefaultOptions.read(parsed, into: &options.settings)
        try StopDetectionOptions.read(parsed, into: &options.settings)
        try EtaModelOptions.read(parsed, into: &options.settings)
        options.partitions = Int32(try parsed.int("partitions", in: 1...100_000))
        options.threads = try parsed.optional("threads") { (name) throws(CommandLineError) in
            try parsed.int(name, in: 1...1_024)
        } ?? RuntimeOptions.availableCores
        options.maxPendingInputs = try parsed.int("max-pending-inputs", in: 100...10_000_000)
        options.maxTransactionBytes = try parsed.int("max-transaction-mb", in: 1...4_096) << 20
        options.sendOutputsEarly = try parsed.bool("send-outputs-early")
        guard options.commitInterval > 0, options.partitions > 0 else {
            throw CommandFailure("--commit-interval and --partitions must be positive")
        }
        return options
    }

    /// Host name and a hash of the state directory: the same instance after a restart, a
    /// different one for another state directory on the same host.
    static func defaultInstanceId(_ stateDirectory: String) -> String {
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, name.count)
        var hasher = StableHasher()
        hasher.combine(stateDirectory)
        let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(host)-\(String(hasher.value % 1_000_000, radix: 36))"
    }
}
