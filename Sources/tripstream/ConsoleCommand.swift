import CommandLineKit
import Console
import HTTPServing
import Foundation
import KafkaIO
import Runtime

/// `tripstream console`: the operations map and the customer tracking pages, from the output topics.
enum ConsoleCommand {
    /// The `--*-topic` options of the topics it reads.
    private static let topicOptions: Set<String> = [
        "users-topic", "events-topic", "eta-topic", "trip-summaries-topic", "geofences-topic", "locations-topic",
    ]

    static let spec = CommandSpec(
        name: "console",
        abstract: "The operations map and customer tracking pages, served from the output topics.",
        discussion: """
            Reads the users and geofences topics from the beginning, and the events, ETA and trip summaries \
            from shortly before their end, of every partition (no consumer group), and serves a live map of \
            the fleet with its trips and events at /, and one trip per customer at /track/<token> (tokens \
            from `tripstream tracking-link` under the same --secret-file). Listens on loopback by default; \
            any other address needs --auth-token-file, whose token the page takes once as ?access_token=.
            """,
        options: KafkaSettings.options + [
            .value("address", valueName: "ipv4:port", help: "Where the console listens.", default: "127.0.0.1:8080",
                   environment: "TRIPSTREAM_CONSOLE_ADDRESS"),
            .value("secret-file", valueName: "file", help: "HMAC secret of tracking links (16 bytes or more).",
                   environment: "TRIPSTREAM_CONSOLE_SECRET_FILE"),
            .value("auth-token-file", valueName: "file", help: "Bearer token for the console (16 bytes or more).",
                   environment: "TRIPSTREAM_CONSOLE_AUTH_TOKEN_FILE"),
            .value("metrics-url", valueName: "url", help: "The service's /metrics, for the lag and events/s chart."),
            .value("stale-after", valueName: "duration", help: "A driver without a fix for this long is stale.",
                   default: "5m"),
            .value("max-connections", valueName: "n",
                   help: "Connections open at once; past it the slowest request head (or longest idle connection) "
                       + "gives way to the new one.", default: "1024"),
            .value("head-timeout", valueName: "duration",
                   help: "Time a client has to send a whole request head (then 408).", default: "10s"),
            .value("idle-timeout", valueName: "duration",
                   help: "Time a kept-alive connection may wait for its next request.", default: "15s"),
        ] + MapTilesOptions.specs + TopicNames.options.filter { topicOptions.contains($0.longName) })

    static func run(_ parsed: ParsedArguments) throws {
        ShutdownSignal.install()
        let kafka = try KafkaSettings.configuration(parsed)
        let addressText = try parsed.string("address")
        guard let address = ListenAddress(addressText) else {
            throw CommandFailure("--address: \(addressText) is not IPV4:PORT")
        }
        var settings = try settings(parsed)
        if !address.isLoopback, !settings.access.required {
            throw CommandFailure("--address \(address) is reachable from other machines: give --auth-token-file too")
        }
        settings.staleMinutes = max(1, Int(try parsed.duration("stale-after") / 60_000))
        var all = Topics()
        for field in TopicNames.fields where topicOptions.contains(field.option) {
            all[keyPath: field.path] = try parsed.string(field.option)
        }
        let topics = ConsoleTopics(all)
        let metricsURL = try parsed.optional("metrics-url", parsed.string)
        if let metricsURL, HTTPGet.split(metricsURL) == nil {
            throw CommandFailure("--metrics-url: \(metricsURL) is not an http://host:port/path URL")
        }
        var metricsSource: (@Sendable () -> String?)?
        if let metricsURL {
            metricsSource = { HTTPGet.fetch(metricsURL).map { String(decoding: $0, as: UTF8.self) } }
        }
        let console = try ConsoleService(kafka: kafka, topics: topics, address: address, settings: settings,
                                         limits: try limits(parsed), metricsSource: metricsSource,
                                         log: { Terminal.error($0) })
        console.start()
        Terminal.error("console at \(console.url)")
        while !ShutdownSignal.isRequested { Terminal.sleep(seconds: 0.2) }
        console.stop()
    }

    /// The HTTP server's limits against slow and idle clients.
    static func limits(_ parsed: ParsedArguments) throws -> ServerLimits {
        var limits = ServerLimits()
        limits.maximumConnections = try parsed.int("max-connections", in: 16...100_000)
        for (option, path) in [("head-timeout", \ServerLimits.headDeadlineSeconds), ("idle-timeout", \.idleTimeoutSeconds)] {
            let milliseconds = try parsed.duration(option)
            guard (100...3_600_000).contains(milliseconds) else {
                throw CommandFailure("--\(option) must be between 100ms and 1h")
            }
            limits[keyPath: path] = Double(milliseconds) / 1000
        }
        return limits
    }

    /// The access token, tracking secret and base map options.
    static func settings(_ parsed: ParsedArguments) throws -> ConsoleSettings {
        var settings = ConsoleSettings()
        if let file = try parsed.optional("secret-file", parsed.string) {
            settings.trackingSecret = try SecretFile.read(file, option: "secret-file", minimumBytes: 16)
        }
        if let file = try parsed.optional("auth-token-file", parsed.string) {
            let token = try SecretFile.read(file, option: "auth-token-file", minimumBytes: 16)
            guard let text = String(validating: token, as: UTF8.self),
                text.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != ";" && $0 != "," })
            else {
                throw CommandFailure("--auth-token-file: the token must be printable ASCII without spaces, ';' or ','")
            }
            settings.access = ConsoleAccess(token: text)
        }
        settings.tiles = try MapTilesOptions.read(parsed)
        return settings
    }
}
