import CommandLineKit
import Testing

@Suite("Usage errors")
struct UsageErrorTests {
    private let program = TestProgram.program

    @Test("Unknown option, with a suggestion by edit distance and the argument's position")
    func unknownOption() {
        let error = TestProgram.usageError { _ = try TestProgram.parseRun(["-v", "--bokers", "x"]) }
        #expect(error?.kind == .unknownOption("--bokers", suggestion: "--brokers"))
        #expect(error?.position == 2)
        #expect(
            error?.description == """
                error: unknown option '--bokers' (argument 3); did you mean '--brokers'?
                See 'tripstream run --help' for usage.
                """)
    }

    @Test("Unknown option far from any declared one gets no suggestion")
    func unknownOptionWithoutSuggestion() {
        let error = TestProgram.usageError { _ = try TestProgram.parseRun(["--zzzzzz"]) }
        #expect(error?.kind == .unknownOption("--zzzzzz", suggestion: nil))
    }

    @Test("A long name written with one dash is suggested with two")
    func singleDashLongName() {
        let error = TestProgram.usageError { _ = try TestProgram.parseRun(["-ratio", "0.5"]) }
        #expect(error?.kind == .unknownOption("-r", suggestion: "--ratio"))
    }

    @Test("Missing value at the end or before another option")
    func missingValue() {
        let atEnd = TestProgram.usageError { _ = try TestProgram.parseRun(["--brokers"]) }
        #expect(atEnd?.kind == .missingValue(option: "--brokers", valueName: "host:port,..."))
        #expect(atEnd?.position == 1)
        let beforeOption = TestProgram.usageError { _ = try TestProgram.parseRun(["-b", "--verbose"]) }
        #expect(beforeOption?.kind == .missingValue(option: "-b", valueName: "host:port,..."))
    }

    @Test("Flags take no value")
    func unexpectedValue() {
        let error = TestProgram.usageError { _ = try TestProgram.parseRun(["--verbose=yes"]) }
        #expect(error?.kind == .unexpectedValue(option: "--verbose", text: "yes"))
        let inverted = TestProgram.usageError { _ = try TestProgram.parseRun(["--no-color=1"]) }
        #expect(inverted?.kind == .unexpectedValue(option: "--no-color", text: "1"))
        // Only flags that declare inversion accept --no-.
        let notInvertible = TestProgram.usageError { _ = try TestProgram.parseRun(["--no-verbose"]) }
        #expect(notInvertible?.kind == .unknownOption("--no-verbose", suggestion: nil))
    }

    @Test("Missing required option names the environment variable that could supply it")
    func missingRequired() {
        let error = TestProgram.usageError { _ = try program.parse(arguments: ["run"], environment: [:]) }
        #expect(error?.kind == .missingRequiredOption(option: "--group-id", environmentVariable: "TRIPSTREAM_GROUP_ID"))
        #expect(error?.position == nil)
        #expect(
            error?.description.hasPrefix(
                "error: missing required option '--group-id' (or environment variable TRIPSTREAM_GROUP_ID)") == true)
    }

    @Test("Reading an absent optional value through a non-optional getter is a missing-option error")
    func readingAbsentValue() throws {
        let parsed = try program.parse(arguments: ["replay", "-o", "x", "a"], environment: [:])
        let error = TestProgram.usageError { _ = try parsed.int("limit") }
        #expect(error?.kind == .missingRequiredOption(option: "--limit", environmentVariable: nil))
    }

    @Test("Positional arguments a command does not take")
    func unexpectedPositional() {
        let error = TestProgram.usageError { _ = try TestProgram.parseRun(["-v", "stray"]) }
        #expect(error?.kind == .unexpectedPositional("stray"))
        #expect(error?.position == 2)
        let afterTerminator = TestProgram.usageError { _ = try TestProgram.parseRun(["--", "--verbose"]) }
        #expect(afterTerminator?.kind == .unexpectedPositional("--verbose"))
    }

    @Test("Missing required positional")
    func missingPositional() {
        let error = TestProgram.usageError {
            _ = try program.parse(arguments: ["replay", "-o", "x"], environment: [:])
        }
        #expect(error?.kind == .missingPositional(name: "files"))
    }

    @Test("Unknown command, with a suggestion")
    func unknownCommand() {
        let error = TestProgram.usageError { _ = try program.parse(arguments: ["rpelay"], environment: [:]) }
        #expect(error?.kind == .unknownCommand("rpelay", suggestion: "replay"))
        #expect(error?.position == 0)
        #expect(error?.description.contains("did you mean 'replay'?") == true)
        let far = TestProgram.usageError { _ = try program.parse(arguments: ["deploy"], environment: [:]) }
        #expect(far?.kind == .unknownCommand("deploy", suggestion: nil))
    }

    @Test("No command and no default command")
    func missingCommand() {
        let error = TestProgram.usageError { _ = try program.parse(arguments: [], environment: [:]) }
        #expect(error?.kind == .missingCommand(available: ["run", "replay", "bench"]))
        let optionFirst = TestProgram.usageError { _ = try program.parse(arguments: ["--verbose"], environment: [:]) }
        #expect(optionFirst?.kind == .missingCommand(available: ["run", "replay", "bench"]))
        #expect(optionFirst?.position == 0)
    }

    @Test("Exit codes: 0 for help, 64 for usage errors, 1 otherwise")
    func exitCodes() {
        struct Other: Error {}
        #expect(CommandLineProgram.exitCode(for: CleanExit(message: "")) == 0)
        #expect(CommandLineProgram.exitCode(for: CommandLineError(.missingPositional(name: "x"))) == 64)
        #expect(CommandLineProgram.exitCode(for: Other()) == 1)
    }

    @Test("Suggestions tolerate transpositions")
    func transpositions() {
        let error = TestProgram.usageError { _ = try program.parse(arguments: ["rnu"], environment: [:]) }
        #expect(error?.kind == .unknownCommand("rnu", suggestion: "run"))
    }
}
