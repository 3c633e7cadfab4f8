import CommandLineKit
import Testing

@Suite("Environment and config file")
struct EnvironmentAndConfigTests {
    private let program = TestProgram.program
    private let config = """
        # TripStream settings
        brokers = config:9092
        workers = 6
        verbose = true
        topic = fixes
        topic = "replays"
        ; another comment style

        commit-interval = 10s
        """

    private func parse(
        _ arguments: [String], environment: [String: String] = [:], file: String? = nil
    ) throws -> ParsedArguments {
        try program.parse(
            arguments: ["run"] + arguments,
            environment: environment.merging(["TRIPSTREAM_GROUP_ID": "g"]) { a, _ in a },
            readFile: { path in
                guard path == "tripstream.conf", let file else {
                    throw CommandLineError(.unreadableConfigFile(path: path, reason: "No such file or directory"))
                }
                return file
            })
    }

    @Test("Precedence is flag > environment > config file > default")
    func precedence() throws {
        let environment = ["TRIPSTREAM_BROKERS": "env:9092"]
        let flag = try parse(
            ["--config", "tripstream.conf", "-b", "flag:9092"], environment: environment, file: config)
        #expect(try flag.string("brokers") == "flag:9092")
        let env = try parse(["--config", "tripstream.conf"], environment: environment, file: config)
        #expect(try env.string("brokers") == "env:9092")
        #expect(env.source(of: "brokers") == .environment(variable: "TRIPSTREAM_BROKERS"))
        let file = try parse(["--config", "tripstream.conf"], file: config)
        #expect(try file.string("brokers") == "config:9092")
        #expect(file.source(of: "brokers") == .configFile(path: "tripstream.conf", line: 2))
        let defaults = try parse([])
        #expect(try defaults.string("brokers") == "localhost:9092")
        #expect(defaults.source(of: "brokers") == .defaultValue)
    }

    @Test("Config values of every kind: single, repeatable, flag")
    func configKinds() throws {
        let parsed = try parse(["--config=tripstream.conf"], file: config)
        #expect(try parsed.int("workers") == 6)
        #expect(try parsed.bool("verbose"))
        #expect(parsed.strings("topic") == ["fixes", "replays"])
        #expect(try parsed.duration("commit-interval") == 10_000)
    }

    @Test("Required options may come from the environment; empty variables count as unset")
    func requiredFromEnvironment() throws {
        let parsed = try program.parse(arguments: ["run"], environment: ["TRIPSTREAM_GROUP_ID": "from-env"])
        #expect(try parsed.string("group-id") == "from-env")
        let empty = TestProgram.usageError {
            _ = try program.parse(arguments: ["run"], environment: ["TRIPSTREAM_GROUP_ID": ""])
        }
        #expect(empty?.kind == .missingRequiredOption(option: "--group-id", environmentVariable: "TRIPSTREAM_GROUP_ID"))
    }

    @Test("Flags from the environment accept boolean words and reject others, naming the variable")
    func flagFromEnvironment() throws {
        #expect(try parse([], environment: ["TRIPSTREAM_VERBOSE": "on"]).bool("verbose"))
        #expect(try parse([], environment: ["TRIPSTREAM_VERBOSE": "0"]).bool("verbose") == false)
        let error = TestProgram.usageError { _ = try parse([], environment: ["TRIPSTREAM_VERBOSE": "loud"]) }
        #expect(error?.source == .environment(variable: "TRIPSTREAM_VERBOSE"))
        #expect(error?.description.contains("invalid value 'loud' for '--verbose': expected a boolean") == true)
        #expect(error?.description.contains("(environment variable TRIPSTREAM_VERBOSE)") == true)
    }

    @Test("Bad values from the config file point at file and line")
    func badConfigValue() throws {
        let parsed = try parse(["--config", "tripstream.conf"], file: "workers = many\n")
        let error = TestProgram.usageError { _ = try parsed.int("workers") }
        #expect(error?.source == .configFile(path: "tripstream.conf", line: 1))
        #expect(
            error?.description.hasPrefix(
                "error: invalid value 'many' for '--workers': expected an integer (tripstream.conf:1)") == true)
    }

    @Test("Unknown config keys are errors with a suggestion")
    func unknownKey() {
        let error = TestProgram.usageError { _ = try parse(["--config", "tripstream.conf"], file: "\nworkrs = 2") }
        #expect(error?.kind == .unknownConfigKey("workrs", suggestion: "workers"))
        #expect(error?.source == .configFile(path: "tripstream.conf", line: 2))
    }

    @Test("Lines that are not key = value are errors")
    func malformedLine() {
        let error = TestProgram.usageError { _ = try parse(["--config", "tripstream.conf"], file: "workers 2") }
        #expect(error?.kind == .malformedConfigLine("workers 2"))
    }

    @Test("An unreadable config file names the path and points at the --config argument")
    func unreadable() {
        let error = TestProgram.usageError { _ = try parse(["-v", "--config", "missing.conf"]) }
        #expect(error?.kind == .unreadableConfigFile(path: "missing.conf", reason: "No such file or directory"))
        #expect(error?.position == 3)
    }

    @Test("The real file reader reports missing files with the system's reason")
    func realFileReader() {
        #expect(
            throws: CommandLineError(
                .unreadableConfigFile(path: "/nonexistent/tripstream.conf", reason: "No such file or directory"))
        ) {
            try ConfigFile.readContents(atPath: "/nonexistent/tripstream.conf")
        }
    }
}
