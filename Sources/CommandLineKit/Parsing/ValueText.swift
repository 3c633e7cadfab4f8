/// Conversions from argument text to typed values. Each returns `nil` for text it does not accept; the caller turns
/// that into a `badValue` error with the matching `...Expectation` text.
enum ValueText {
    static let integerExpectation = "an integer"
    static let numberExpectation = "a number"
    static let booleanExpectation = "a boolean (true/false, yes/no, on/off, 1/0)"
    static let durationExpectation = "a duration such as 250ms, 30s, 5m, 6h, 2d or 1h30m"
    static let byteSizeExpectation = "a size such as 4096, 64KiB, 5MiB or 1GiB"

    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }

    /// Parses `<digits><unit>` groups (units `ms`, `s`, `m`, `h`, `d`) and sums them; `0` alone is allowed.
    static func milliseconds(_ text: String) -> Int64? {
        if text == "0" { return 0 }
        let unitFactors: [Substring: Int64] = ["ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000]
        var rest = Substring(text)
        guard !rest.isEmpty else { return nil }
        var total: Int64 = 0
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            rest = rest.dropFirst(digits.count)
            let unit = rest.prefix { $0.isASCII && $0.isLetter }
            rest = rest.dropFirst(unit.count)
            guard let amount = Int64(digits), let factor = unitFactors[unit] else { return nil }
            let (part, overflowA) = amount.multipliedReportingOverflow(by: factor)
            let (sum, overflowB) = total.addingReportingOverflow(part)
            guard !overflowA, !overflowB else { return nil }
            total = sum
        }
        return total
    }

    /// Parses `<digits>[ ][unit]`; binary units for `KiB`/`K`, decimal for `KB`, case-insensitive.
    static func byteCount(_ text: String) -> Int64? {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        let unit = text.dropFirst(digits.count).drop { $0 == " " }.lowercased()
        let factors: [String: Int64] = [
            "": 1, "b": 1,
            "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20,
            "g": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tib": 1 << 40,
            "kb": 1_000, "mb": 1_000_000, "gb": 1_000_000_000, "tb": 1_000_000_000_000,
        ]
        guard let amount = Int64(digits), let factor = factors[unit] else { return nil }
        let (bytes, overflow) = amount.multipliedReportingOverflow(by: factor)
        return overflow ? nil : bytes
    }

    static func commaSeparated(_ text: String) -> [String] {
        text.split(separator: ",").map { trimmed($0) }.filter { !$0.isEmpty }
    }

    static func trimmed(_ text: some StringProtocol) -> String {
        String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}

/// The value syntaxes of options, for values that arrive inside another option (`--set name=value`).
public enum ValueSyntax {
    /// Milliseconds of a duration such as `250ms`, `30s`, `5m`, `6h`, `2d` or `1h30m`; nil otherwise.
    public static func milliseconds(_ text: String) -> Int64? { ValueText.milliseconds(text) }

    /// What a duration looks like, for error messages.
    public static let durationExpectation = ValueText.durationExpectation
}
