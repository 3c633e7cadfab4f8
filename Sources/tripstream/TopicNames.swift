import CommandLineKit
import Runtime

/// The `--*-topic` options shared by every command that talks to a broker.
enum TopicNames {
    nonisolated(unsafe) static let fields: [(option: String, path: WritableKeyPath<Topics, String>, help: String)] = [
        ("locations-topic", \.locations, "Input: location fixes, keyed by userId."),
        ("commands-topic", \.tripCommands, "Input: trip commands, keyed by userId."),
        ("geofences-topic", \.geofences, "Input: geofences, keyed by tag/externalId (compacted)."),
        ("events-topic", \.events, "Output: Radar-shaped events."),
        ("eta-topic", \.eta, "Output: lean ETA updates."),
        ("users-topic", \.users, "Output: latest state per user (compacted)."),
        ("dead-letters-topic", \.deadLetters, "Output: rejected inputs with a reason."),
        ("trip-summaries-topic", \.tripSummaries, "Output: one summary per finished trip."),
        ("changelog-topic", \.stateChangelog, "Internal: the state store's changelog (compacted)."),
    ]

    static var options: [OptionSpec] {
        let defaults = Topics()
        return fields.map { field in
            .value(field.option, valueName: "name", help: field.help, default: defaults[keyPath: field.path],
                   environment: "TRIPSTREAM_" + field.option.uppercased().replacingDashes())
        }
    }

    static func topics(_ parsed: ParsedArguments) throws -> Topics {
        var topics = Topics()
        for field in fields { topics[keyPath: field.path] = try parsed.string(field.option) }
        return topics
    }
}

extension String {
    func replacingDashes() -> String { String(map { $0 == "-" ? "_" : $0 }) }
}
