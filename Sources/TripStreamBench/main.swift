import CommandLineKit
import CommandSupport

/// `tripstream-bench [options]`: the benchmarks (throughput of each stage and of the replay path,
/// the pipeline, the lookup sweep, the replay horizon, the learned ETA, the soak), apart from the
/// `tripstream` users run. Exit status as `tripstream`'s: 0 done, 2 an error.
do {
    let parsed = try BenchCommand.spec.parse(arguments: Array(CommandLine.arguments.dropFirst()),
                                             environment: ProcessEnvironment.current())
    try BenchCommand.run(parsed)
} catch {
    ExitStatus.exit(with: error)
}
