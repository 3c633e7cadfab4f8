// MARK: - Typed getters

extension ParsedArguments {
    /// The value of `option` as text.
    /// - Throws: `missingRequiredOption` when no source supplied a value.
    public func string(_ option: String) throws(CommandLineError) -> String {
        try singleValue(of: option).text
    }

    /// Every value of a repeatable option, in command-line order; empty when none was given.
    public func strings(_ option: String) -> [String] {
        values(of: option).map(\.text)
    }

    /// The value of `option` as a decimal integer, e.g. `42` or `-3`.
    public func int(_ option: String) throws(CommandLineError) -> Int {
        try convert(option, expected: ValueText.integerExpectation) { Int($0) }
    }

    /// The value of `option` as a decimal integer within `range`: anything else, e.g. `2^62` for a count
    /// or `70000` for a port, is a usage error naming the option and the range, never an overflow later.
    public func int(_ option: String, in range: ClosedRange<Int>) throws(CommandLineError) -> Int {
        let expected = "an integer from \(range.lowerBound) to \(range.upperBound)"
        return try convert(option, expected: expected) { text in Int(text).flatMap { range.contains($0) ? $0 : nil } }
    }

    /// The value of `option` as a finite floating-point number.
    public func double(_ option: String) throws(CommandLineError) -> Double {
        try convert(option, expected: ValueText.numberExpectation) { Double($0).flatMap { $0.isFinite ? $0 : nil } }
    }

    /// The state of a flag (`false` when absent), or a value option read as `true/false/yes/no/on/off/1/0`.
    public func bool(_ option: String) throws(CommandLineError) -> Bool {
        guard contains(option) else { return false }
        return try convert(option, expected: ValueText.booleanExpectation, ValueText.boolean)
    }

    /// The value of `option` as a duration in milliseconds: `250ms`, `30s`, `5m`, `6h`, `2d`, or sums such as `1h30m`.
    /// Negative or unit-less values (other than `0`) are rejected.
    public func duration(_ option: String) throws(CommandLineError) -> Int64 {
        try convert(option, expected: ValueText.durationExpectation, ValueText.milliseconds)
    }

    /// The value of `option` as a byte count: plain bytes, `B`, binary `KiB/MiB/GiB/TiB` (also `K/M/G/T`), or
    /// decimal `KB/MB/GB/TB`.
    public func byteSize(_ option: String) throws(CommandLineError) -> Int64 {
        try convert(option, expected: ValueText.byteSizeExpectation, ValueText.byteCount)
    }

    /// The value of `option` as a case of `type`; the error lists every accepted raw value.
    public func enumValue<Value: CaseIterable & RawRepresentable<String>>(
        _ option: String, as type: Value.Type = Value.self
    ) throws(CommandLineError) -> Value {
        let choices = Value.allCases.map(\.rawValue).joined(separator: ", ")
        return try convert(option, expected: "one of: \(choices)") { Value(rawValue: $0) }
    }

    /// Comma-separated values of `option`, trimmed, without empty items. For a repeatable option all occurrences are
    /// joined: `--topic a,b --topic c` gives `["a", "b", "c"]`. Empty when no source supplied a value.
    public func list(_ option: String) -> [String] {
        values(of: option).flatMap { ValueText.commaSeparated($0.text) }
    }

    /// The value of `option` read by `read`, or `nil` when no source supplied one.
    ///
    /// ```swift
    /// let limit = try parsed.optional("limit", parsed.int)      // Int?
    /// ```
    public func optional<Value>(
        _ option: String, _ read: (String) throws(CommandLineError) -> Value
    ) throws(CommandLineError) -> Value? {
        contains(option) ? try read(option) : nil
    }

    private func convert<Value>(
        _ option: String, expected: String, _ transform: (String) -> Value?
    ) throws(CommandLineError) -> Value {
        let value = try singleValue(of: option)
        guard let converted = transform(value.text) else { throw badValue(option, value, expected: expected) }
        return converted
    }
}
