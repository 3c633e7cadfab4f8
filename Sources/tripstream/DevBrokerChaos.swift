import CommandLineKit
import KafkaIO
import Simulation

/// `dev-broker --chaos SEED`: the dev broker failing on a seeded schedule, one `fault:` line per fault on stdout
/// (and a `healed:` line when a broker comes back or a spike ends), so clients can be tried against it.
struct DevBrokerChaos {
    static let options: [OptionSpec] = [
        .value("chaos", valueName: "seed",
               help: "Inject faults drawn from this seed: brokers down, partition leaders and coordinators moving, "
                   + "retriable request errors, round-trip spikes; one `fault:` line each on stdout. The same seed "
                   + "gives the same faults at the same times."),
        .value("chaos-interval", valueName: "duration", help: "With --chaos: the mean time between two faults.",
               default: "2s"),
        .value("chaos-group", valueName: "id,...",
               help: "With --chaos: consumer groups whose coordinator moves (the broker cannot list them).",
               default: "tripstream"),
        .value("chaos-transactional-id", valueName: "id,...",
               help: "With --chaos: transactional ids whose coordinator moves; `run` uses "
                   + "tripstream-<group>-<instance-id>. Default: none, no transaction coordinator moves."),
    ]

    let schedule: ChaosSchedule<SeededRandom>

    /// The chaos `parsed` asks for, or nil without `--chaos`.
    init?(_ parsed: ParsedArguments, brokerCount: Int, topics: [TopicSpec]) throws {
        guard parsed.contains("chaos") else {
            let stray = ["chaos-interval", "chaos-group", "chaos-transactional-id"].filter {
                parsed.contains($0) && parsed.source(of: $0) != .defaultValue
            }
            if let option = stray.first { throw CommandFailure("--\(option) needs --chaos SEED") }
            return nil
        }
        let settings: ChaosSettings
        do {
            settings = try ChaosSettings(seed: try parsed.string("chaos"), meanInterval: try parsed.duration("chaos-interval"))
        } catch let error as ChaosSettingsError {
            throw CommandFailure("--chaos: \(error)")
        }
        let target = ChaosTarget(brokerCount: brokerCount, topics: topics, groups: parsed.list("chaos-group"),
                                 transactionalIds: parsed.list("chaos-transactional-id"))
        schedule = ChaosSchedule(target: target, settings: settings, random: SeededRandom(seed: settings.seed))
    }

    /// What the chaos will do, for stderr.
    var summary: String {
        let kinds = schedule.target.kinds.map(\.rawValue).joined(separator: ", ")
        return "chaos: seed \(schedule.settings.seed), a fault every \(ChaosStep.seconds(schedule.settings.meanInterval)) "
            + "on average; kinds: \(kinds)"
    }

    /// Runs the schedule on `cluster` until `shouldStop`: a `fault:` or `healed:` line on stdout per step.
    func run(on cluster: MockCluster, until shouldStop: () -> Bool) {
        cluster.run(schedule, until: shouldStop) { step, error in
            if let error {
                Terminal.error("chaos: the broker refused '\(step.line)': \(error)")
            } else {
                Terminal.output(step.line)
            }
        }
    }
}
