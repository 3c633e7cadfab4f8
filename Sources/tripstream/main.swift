import CommandLineKit

#if canImport(Glibc)
import Glibc
#endif

/// `tripstream <command>`: one executable for the service, its development broker, the demo, the
/// simulator, the analysts' replay and the benchmarks.
let program = CommandLineProgram(
    name: "tripstream",
    abstract: "Trip and geofence events from location fixes, on Kafka.",
    discussion: """
        TripStream folds each user's location fixes and trip commands, in event-time order even when devices \
        replay offline buffers, into Radar-webhook-shaped trip and geofence events and ETA updates.
        """,
    commands: [
        RunCommand.spec, DevBrokerCommand.spec, DemoCommand.spec, SimulateCommand.spec, ReplayCommand.spec,
        BenchCommand.spec, DiffCommand.spec, ArchiveCommand.spec, ConsoleCommand.spec, TrackingLinkCommand.spec,
    ])

let parsed = program.parseOrExit()
do {
    switch parsed.commandName {
    case RunCommand.spec.name: try RunCommand.run(parsed)
    case DevBrokerCommand.spec.name: try DevBrokerCommand.run(parsed)
    case DemoCommand.spec.name: try DemoCommand.run(parsed)
    case SimulateCommand.spec.name: try SimulateCommand.run(parsed)
    case ReplayCommand.spec.name: try ReplayCommand.run(parsed)
    case BenchCommand.spec.name: try BenchCommand.run(parsed)
    case ArchiveCommand.spec.name: try ArchiveCommand.run(parsed)
    case ConsoleCommand.spec.name: try ConsoleCommand.run(parsed)
    case TrackingLinkCommand.spec.name: try TrackingLinkCommand.run(parsed)
    case DiffCommand.spec.name:
        do { try DiffCommand.run(parsed) } catch is DiffFound { exit(1) }
    default: fatalError("unhandled command \(parsed.commandName)")
    }
} catch {
    CommandLineProgram.exit(with: error is CommandLineError || error is CommandFailure ? error : CommandFailure("\(error)"))
}

/// A command that could not do its job: printed as `error: …`, exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = "error: \(message)" }
}
