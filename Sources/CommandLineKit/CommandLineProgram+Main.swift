#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - Running in a real process

extension CommandLineProgram {
    /// Parses the real process's arguments and environment. On `--help` prints the help to standard output and
    /// exits 0; on a usage error prints the message to standard error and exits 64.
    public func parseOrExit(
        arguments: [String] = Array(CommandLine.arguments.dropFirst()),
        environment: [String: String] = ProcessEnvironment.current()
    ) -> ParsedArguments {
        do {
            return try parse(arguments: arguments, environment: environment)
        } catch {
            Self.exit(with: error)
        }
    }

    /// Exit status for an error thrown while parsing or validating: 0 for `CleanExit`, 64 (`EX_USAGE`) for
    /// `CommandLineError`, 1 for anything else.
    public static func exitCode(for error: any Error) -> Int32 {
        switch error {
        case let clean as CleanExit: clean.exitCode
        case let usage as CommandLineError: usage.exitCode
        default: 1
        }
    }

    /// Prints `error` where it belongs (help to standard output, anything else to standard error) and exits with
    /// `exitCode(for:)`. Use it for errors from `validate()`-style checks after parsing, too.
    public static func exit(with error: any Error) -> Never {
        if let clean = error as? CleanExit {
            ProcessEnvironment.writeToStandardOutput(clean.message)
        } else {
            ProcessEnvironment.writeToStandardError("\(error)\n")
        }
        #if canImport(Darwin)
            Darwin.exit(exitCode(for: error))
        #else
            Glibc.exit(exitCode(for: error))
        #endif
    }
}
