import CommandLineKit
import CommandSupport

#if canImport(Glibc)
import Glibc
#endif

/// `tripstream <command>`: one executable for the service, its development broker, the demo, the
/// simulator, the analysts' replay and the console. The benchmarks are `tripstream-bench`, not shipped.
let program = CommandLineProgram(
    name: "tripstream",
    abstract: "Trip and geofence events from location fixes, on Kafka.",
    discussion: """
        TripStream folds each user's location fixes and trip commands, in event-time order even when devices \
        replay offline buffers, into Radar-webhook-shaped trip and geofence events and ETA updates. \
        `tripstream --version` prints the version. Exit status: 0 success (diff: the same), 1 diff found \
        differences, 2 an error.
        """,
    commands: [
        RunCommand.spec, DevBrokerCommand.spec, DemoCommand.spec, SimulateCommand.spec, ReplayCommand.spec,
        DiffCommand.spec, ArchiveCommand.spec, ConsoleCommand.spec, TrackingLinkCommand.spec,
    ])

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments == ["--version"] || arguments == ["version"] {
    Terminal.output("tripstream \(TripStreamVersion.current)")
    exit(ExitStatus.success)
}
let parsed: ParsedArguments
do {
    parsed = try program.parse(arguments: arguments, environment: ProcessEnvironment.current())
} catch {
    ExitStatus.exit(with: error)
}
ExitStatus.verbose = ExitStatus.isVerbose(parsed)
do {
    switch parsed.commandName {
    case RunCommand.spec.name: try RunCommand.run(parsed)
    case DevBrokerCommand.spec.name: try DevBrokerCommand.run(parsed)
    case DemoCommand.spec.name: try DemoCommand.run(parsed)
    case SimulateCommand.spec.name: try SimulateCommand.run(parsed)
    case ReplayCommand.spec.name: try ReplayCommand.run(parsed)
    case ArchiveCommand.spec.name: try ArchiveCommand.run(parsed)
    case ConsoleCommand.spec.name: try ConsoleCommand.run(parsed)
    case TrackingLinkCommand.spec.name: try TrackingLinkCommand.run(parsed)
    case DiffCommand.spec.name:
        do { try DiffCommand.run(parsed) } catch is DiffFound { exit(ExitStatus.differ) }
    default: fatalError("unhandled command \(parsed.commandName)")
    }
} catch {
    ExitStatus.exit(with: error)
}
