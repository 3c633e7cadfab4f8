import CommandLineKit
import Testing

@Suite("Option syntax")
struct OptionSyntaxTests {
    @Test("--k v, --k=v, -k v, -kv and -k=v all set the value")
    func valueSpellings() throws {
        for arguments in [
            ["--brokers", "a:1"], ["--brokers=a:1"], ["-b", "a:1"], ["-ba:1"], ["-b=a:1"],
        ] {
            let parsed = try TestProgram.parseRun(arguments)
            #expect(try parsed.string("brokers") == "a:1", "\(arguments)")
            #expect(parsed.source(of: "brokers") != .defaultValue)
        }
    }

    @Test("A value may contain '=' and may be a negative number")
    func valuesThatLookSpecial() throws {
        let parsed = try TestProgram.parseRun(["--brokers=a=b", "--workers", "-3"])
        #expect(try parsed.string("brokers") == "a=b")
        #expect(try parsed.int("workers") == -3)
    }

    @Test("The last occurrence of a single-value option wins; repeatable options collect")
    func repetition() throws {
        let parsed = try TestProgram.parseRun(["-w", "1", "--workers", "4", "-t", "a", "--topic=b,c", "-t", "d"])
        #expect(try parsed.int("workers") == 4)
        #expect(parsed.strings("topic") == ["a", "b,c", "d"])
        #expect(parsed.list("topic") == ["a", "b", "c", "d"])
        #expect(
            parsed.values(of: "topic").map(\.source) == [
                .commandLine(position: 6), .commandLine(position: 7), .commandLine(position: 9),
            ])
    }

    @Test("Flags: long, short, clustered, inverted, absent")
    func flags() throws {
        let absent = try TestProgram.parseRun([])
        #expect(try absent.bool("verbose") == false)
        #expect(try absent.bool("color") == true)

        let given = try TestProgram.parseRun(["-vq", "--no-color"])
        #expect(try given.bool("verbose"))
        #expect(try given.bool("quiet"))
        #expect(try given.bool("color") == false)

        let reenabled = try TestProgram.parseRun(["--no-color", "--color"])
        #expect(try reenabled.bool("color"))
    }

    @Test("A short value option ends a cluster and takes the rest as its value")
    func clusterEndingInValueOption() throws {
        let parsed = try TestProgram.parseRun(["-vw8"])
        #expect(try parsed.bool("verbose"))
        #expect(try parsed.int("workers") == 8)
    }

    @Test("-- ends options: what follows is positional even if it starts with a dash")
    func terminator() throws {
        let parsed = try TestProgram.program.parse(
            arguments: ["replay", "-o", "out.ndjson", "a.ndjson", "--", "--weird.ndjson", "-"], environment: [:])
        #expect(parsed.commandName == "replay")
        #expect(parsed.positionals("files") == ["a.ndjson", "--weird.ndjson", "-"])
        #expect(parsed.positional("files") == "a.ndjson")
        #expect(try parsed.string("output") == "out.ndjson")
    }

    @Test("Optional options without a value read as nil through optional(_:_:)")
    func optionalValues() throws {
        let without = try TestProgram.program.parse(arguments: ["replay", "-o", "x", "a"], environment: [:])
        #expect(try without.optional("limit", without.int) == nil)
        #expect(without.contains("limit") == false)
        let with = try TestProgram.program.parse(
            arguments: ["replay", "-o", "x", "--limit", "10", "a"], environment: [:])
        #expect(try with.optional("limit", with.int) == 10)
    }

    @Test("A default command takes over when the first argument is an option")
    func defaultCommand() throws {
        let program = CommandLineProgram(
            name: "tripstream", abstract: "x", commands: [TestProgram.run, TestProgram.bench], defaultCommand: "run")
        let parsed = try program.parse(arguments: ["--workers", "3"], environment: ["TRIPSTREAM_GROUP_ID": "g"])
        #expect(parsed.commandName == "run")
        #expect(try parsed.int("workers") == 3)
        #expect(try program.parse(arguments: [], environment: ["TRIPSTREAM_GROUP_ID": "g"]).commandName == "run")
    }

    @Test("A command can be parsed on its own")
    func standaloneCommand() throws {
        let parsed = try TestProgram.bench.parse(arguments: [], environment: [:])
        #expect(parsed.commandName == "bench")
    }
}
