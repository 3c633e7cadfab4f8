import CommandLineKit
import Testing

@Suite("Help")
struct HelpTests {
    private let program = TestProgram.program

    private func help(_ arguments: [String]) -> String? {
        do {
            _ = try program.parse(arguments: arguments, environment: [:])
            return nil
        } catch let exit as CleanExit {
            return exit.message
        } catch {
            return nil
        }
    }

    @Test("tripstream --help lists the commands with their abstracts")
    func programHelp() throws {
        let text = try #require(help(["--help"]))
        #expect(text == help(["-h"]))
        #expect(text == help(["help"]))
        #expect(text.contains("OVERVIEW: Trip and geofence events from vehicle GPS fixes."))
        #expect(text.contains("USAGE: tripstream <command> [<options>]"))
        #expect(text.contains("  run     The service, against real brokers.\n"))
        #expect(text.contains("  replay  Fold NDJSON files (plain or .lz4) into output files.\n"))
        #expect(text.contains("  bench   Throughput of the fold, the codecs and the pipeline.\n"))
    }

    @Test("tripstream run --help: usage, discussion, aligned options with defaults, choices and env")
    func commandHelp() throws {
        let text = try #require(help(["run", "--verbose", "--help"]))
        #expect(text == help(["help", "run"]))
        #expect(text == help(["run", "-h"]))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains("USAGE: tripstream run --group-id <group-id> [<options>]"))
        #expect(text.contains("Consumes fixes, folds them into trips and geofence events"))
        #expect(
            text.contains(
                """
                  -b, --brokers <host:port,...>  Kafka bootstrap servers. (default: localhost:9092; env:
                                                 TRIPSTREAM_BROKERS)
                  --group-id <group-id>          Consumer group id. (env: TRIPSTREAM_GROUP_ID; required)
                  --commit-interval <duration>   How often to checkpoint. (default: 5s)
                """))
        #expect(
            lines.contains(
                "  --format <format>              Event format. (choices: ndjson, avro, table; default: ndjson)"))
        #expect(lines.contains("  -t, --topic <topic> ...        Topics to consume."))
        #expect(lines.contains("  --[no-]color                   Colour the output. (default: true)"))
        #expect(lines.contains("  -h, --help                     Show help information."))
        #expect(lines.allSatisfy { $0.count <= 100 }, "wrapped at 100 columns")
        // Every description line starts in column 33: 2 of indent, the widest label (29), 2 of gap.
        let optionLines = lines.drop { $0 != "OPTIONS:" }.dropFirst().filter { !$0.isEmpty }.map(Array.init)
        #expect(optionLines.count == 15)
        for line in optionLines {
            #expect(line[31] == " " && line[32] == " " && line[33] != " ", "\(String(line))")
        }
    }

    @Test("Help of a command with positionals shows them in usage and in an ARGUMENTS section")
    func positionalsInHelp() throws {
        let text = try #require(help(["replay", "--help"]))
        #expect(text.contains("USAGE: tripstream replay --output <path> [<options>] <files> ..."))
        #expect(text.contains("ARGUMENTS:\n  <files>  Input files."))
        #expect(text.contains("(required)"))
    }

    @Test("Long descriptions wrap under their column, within 100 columns")
    func wrapping() throws {
        let longHelp = String(repeating: "Very long help text that goes on. ", count: 12)
        let command = CommandSpec(
            name: "x", abstract: "A command.", options: [.value("a-rather-long-option-name-indeed", help: longHelp)])
        let text = HelpFormatter().commandHelp(command, usageName: "tripstream x")
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { $0.count <= 100 })
        // The label is wider than the column limit, so it sits alone and the text follows, indented.
        let labelIndex = try #require(
            lines.firstIndex(of: "  --a-rather-long-option-name-indeed <a-rather-long-option-name-indeed>"))
        // Column limit 30 + 2 of indent + 2 of gap.
        #expect(lines[labelIndex + 1].hasPrefix(String(repeating: " ", count: 34) + "Very long"))
        let continuation = lines[(labelIndex + 1)...].prefix { !$0.hasPrefix("  -h") }
        #expect(continuation.count >= 4)
        #expect(continuation.allSatisfy { $0.hasPrefix(String(repeating: " ", count: 34)) && $0.count > 34 })
    }

    @Test("help for an unknown command is a usage error")
    func helpUnknownCommand() {
        let error = TestProgram.usageError { _ = try program.parse(arguments: ["help", "rn"], environment: [:]) }
        #expect(error?.kind == .unknownCommand("rn", suggestion: "run"))
        #expect(error?.position == 1)
    }
}
