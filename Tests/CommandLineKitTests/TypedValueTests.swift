import CommandLineKit
import Testing

@Suite("Typed getters")
struct TypedValueTests {
    private func run(_ option: String, _ text: String) throws -> ParsedArguments {
        // `=` keeps texts such as `-5s` from being read as options.
        try TestProgram.parseRun(["--\(option)=\(text)"])
    }

    @Test(
        "Durations in milliseconds",
        arguments: [
            ("250ms", 250), ("30s", 30_000), ("5m", 300_000), ("6h", 21_600_000), ("2d", 172_800_000),
            ("1h30m", 5_400_000), ("1m30s500ms", 90_500), ("0", 0), ("0s", 0),
        ] as [(String, Int64)])
    func durations(text: String, milliseconds: Int64) throws {
        #expect(try run("commit-interval", text).duration("commit-interval") == milliseconds)
    }

    @Test(
        "Bad durations name the option, the text and the expected form",
        arguments: [
            "-5s", "5", "abc", "5x", "1.5s", "", "h", "5M", "99999999999999999d",
        ])
    func badDurations(text: String) throws {
        let parsed = try run("commit-interval", text)
        let error = TestProgram.usageError { _ = try parsed.duration("commit-interval") }
        #expect(
            error?.kind
                == .badValue(
                    option: "--commit-interval", text: text,
                    expected: "a duration such as 250ms, 30s, 5m, 6h, 2d or 1h30m"))
        #expect(error?.position == 1)
        #expect(error?.exitCode == 64)
    }

    @Test(
        "Integers outside their range are usage errors naming the range, not overflows later",
        arguments: ["4611686018427387904", "70000", "-1", "99999999999999999999"])
    func integersOutOfRange(text: String) throws {
        let parsed = try run("workers", text)
        let error = TestProgram.usageError { _ = try parsed.int("workers", in: 0...65_535) }
        #expect(error?.kind == .badValue(option: "--workers", text: text, expected: "an integer from 0 to 65535"))
        #expect(error?.exitCode == 64)
        #expect(try run("workers", "65535").int("workers", in: 0...65_535) == 65_535)
    }

    @Test("Default values are parsed like given ones")
    func defaults() throws {
        let parsed = try TestProgram.parseRun([])
        #expect(try parsed.duration("commit-interval") == 5_000)
        #expect(try parsed.byteSize("snapshot-size") == 64 << 20)
        #expect(try parsed.int("workers") == 2)
        #expect(try parsed.double("ratio") == 1.0)
        #expect(try parsed.enumValue("format", as: OutputFormat.self) == .ndjson)
        #expect(parsed.source(of: "workers") == .defaultValue)
    }

    @Test(
        "Byte sizes",
        arguments: [
            ("4096", 4096), ("64KiB", 65_536), ("5MiB", 5 << 20), ("1GiB", 1 << 30), ("1gib", 1 << 30),
            ("2K", 2048), ("10B", 10), ("1 MiB", 1 << 20), ("3MB", 3_000_000),
        ] as [(String, Int64)])
    func byteSizes(text: String, bytes: Int64) throws {
        #expect(try run("snapshot-size", text).byteSize("snapshot-size") == bytes)
    }

    @Test("Bad byte sizes", arguments: ["-1KiB", "KiB", "5XB", "1.5MiB", "99999999999TiB"])
    func badByteSizes(text: String) throws {
        let parsed = try run("snapshot-size", text)
        let error = TestProgram.usageError { _ = try parsed.byteSize("snapshot-size") }
        guard case .badValue(let option, let badText, let expected)? = error?.kind else {
            Issue.record("expected badValue, got \(String(describing: error))")
            return
        }
        #expect(option == "--snapshot-size")
        #expect(badText == text)
        #expect(expected.contains("64KiB"))
    }

    @Test("Integers, numbers and booleans reject garbage")
    func scalars() throws {
        #expect(try run("workers", "12").int("workers") == 12)
        #expect(
            TestProgram.usageError { _ = try run("workers", "12x").int("workers") }?.kind
                == .badValue(option: "--workers", text: "12x", expected: "an integer"))
        #expect(try run("ratio", "0.25").double("ratio") == 0.25)
        #expect(
            TestProgram.usageError { _ = try run("ratio", "nan").double("ratio") }?.kind
                == .badValue(option: "--ratio", text: "nan", expected: "a number"))
        #expect(try run("workers", "yes").bool("workers"))
        #expect(try run("workers", "0").bool("workers") == false)
        let bad = TestProgram.usageError { _ = try run("workers", "maybe").bool("workers") }
        #expect(bad?.description.contains("invalid value 'maybe' for '--workers'") == true)
    }

    @Test("Enum options accept raw values and list the choices when they do not")
    func enums() throws {
        #expect(try run("format", "avro").enumValue("format", as: OutputFormat.self) == .avro)
        // Choices are known to the table, so the error comes from parsing itself, with the value's position.
        let error = TestProgram.usageError { _ = try run("format", "json") }
        #expect(error?.kind == .badValue(option: "--format", text: "json", expected: "one of: ndjson, avro, table"))
        #expect(error?.position == 1)
    }

    @Test("Lists split on commas, trim blanks and drop empty items")
    func lists() throws {
        #expect(try run("brokers", " a:1, b:2,,c:3 ").list("brokers") == ["a:1", "b:2", "c:3"])
        #expect(try TestProgram.parseRun([]).list("topic") == [])
    }
}
