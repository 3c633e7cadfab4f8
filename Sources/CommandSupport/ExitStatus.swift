import CommandLineKit

#if canImport(Glibc)
import Glibc
#endif

/// How `tripstream` and `tripstream-bench` end, as diff(1) and most tools: 0 done (diff: the runs are the same), 1 diff found
/// differences, 2 anything went wrong (a bad option, a missing file, unreachable brokers, a failed run).
public enum ExitStatus {
    public static let success: Int32 = 0
    public static let differ: Int32 = 1
    public static let failure: Int32 = 2

    /// Set from a command's `--verbose`: errors then carry their full detail (librdkafka's lines, source places).
    nonisolated(unsafe) public static var verbose = false

    /// Prints `error` (help to standard output, anything else as one `error: …` line to standard error) and exits.
    public static func exit(with error: any Error) -> Never {
        if let clean = error as? CleanExit {
            Terminal.write(clean.message, to: STDOUT_FILENO)
            Glibc.exit(success)
        }
        Terminal.error(message(for: error))
        Glibc.exit(failure)
    }

    public static func message(for error: any Error) -> String {
        switch error {
        case let usage as CommandLineError: "\(usage)"
        case let failure as CommandFailure:
            verbose ? failure.verboseDescription : failure.description
        default: "error: " + (verbose ? String(reflecting: error) : "\(error)")
        }
    }

    /// Whether the command parsed declares `--verbose` and was given it.
    public static func isVerbose(_ parsed: ParsedArguments) -> Bool {
        parsed.command.option(named: "verbose") != nil && ((try? parsed.bool("verbose")) ?? false)
    }
}
