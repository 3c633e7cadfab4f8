import Domain

/// Reads an ETA model file's bytes field by field, without a string per line or per number (a
/// million cell lines are read when `run` starts with a large fleet's model). Every failure names
/// the 1-based line and the field expected there; running out of bytes before a line's end is a
/// truncated file.
struct EtaModelReader {
    private let bytes: [UInt8]
    private(set) var offset = 0
    /// The line being read, 1-based (0 before the first).
    private(set) var lineNumber = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }

    private static let space = UInt8(ascii: " "), newline = UInt8(ascii: "\n")

    mutating func skip(_ count: Int) { offset = min(offset + count, bytes.count) }

    /// Counts a new line; the file ending before it is a truncated file.
    mutating func startLine() throws(EtaModelFileError) {
        guard offset < bytes.count else { throw .truncated }
        lineNumber += 1
    }

    /// A line exactly `text`; else `mismatch`.
    mutating func expectLine(_ text: String, or mismatch: EtaModelFileError) throws(EtaModelFileError) {
        try startLine()
        guard let end = bytes[offset...].firstIndex(of: Self.newline) else { throw .truncated }
        guard bytes[offset..<end].elementsEqual(text.utf8) else {
            // Same name, other values: another build's model; another name: a damaged line.
            let name = text.prefix { $0 != " " }
            throw bytes[offset..<end].starts(with: (name + " ").utf8) ? mismatch
                : .malformed(line: lineNumber, field: String(name))
        }
        offset = end + 1
    }

    /// A new line starting with `name`.
    mutating func name(_ name: String) throws(EtaModelFileError) {
        try startLine()
        for byte in name.utf8 {
            guard offset < bytes.count else { throw .truncated }
            guard bytes[offset] == byte else { throw .malformed(line: lineNumber, field: name) }
            offset += 1
        }
    }

    mutating func space(_ field: String) throws(EtaModelFileError) { try expect(Self.space, field) }

    mutating func endLine(_ field: String) throws(EtaModelFileError) { try expect(Self.newline, field) }

    private mutating func expect(_ byte: UInt8, _ field: String) throws(EtaModelFileError) {
        guard offset < bytes.count else { throw .truncated }
        guard bytes[offset] == byte else { throw .malformed(line: lineNumber, field: field) }
        offset += 1
    }

    /// Decimal digits, below `limit`.
    mutating func unsigned(_ field: String, below limit: UInt64 = .max) throws(EtaModelFileError) -> UInt64 {
        var value: UInt64 = 0, digits = 0
        while offset < bytes.count, bytes[offset] &- UInt8(ascii: "0") < 10 {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[offset] &- UInt8(ascii: "0")))
            guard !overflow1, !overflow2, sum < limit else { throw .malformed(line: lineNumber, field: field) }
            value = sum
            offset += 1
            digits += 1
        }
        guard offset < bytes.count else { throw .truncated }
        guard digits > 0 else { throw .malformed(line: lineNumber, field: field) }
        return value
    }

    /// An optional minus sign and decimal digits.
    mutating func signed(_ field: String) throws(EtaModelFileError) -> Int64 {
        let negative = offset < bytes.count && bytes[offset] == UInt8(ascii: "-")
        if negative { offset += 1 }
        let magnitude = try unsigned(field, below: UInt64(Int64.max) + 2)
        if negative { return magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude) }
        guard magnitude <= UInt64(Int64.max) else { throw .malformed(line: lineNumber, field: field) }
        return Int64(magnitude)
    }

    /// Exactly 16 lowercase hexadecimal digits.
    mutating func hexadecimal(_ field: String) throws(EtaModelFileError) -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<16 {
            guard offset < bytes.count else { throw .truncated }
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: throw .malformed(line: lineNumber, field: field)
            }
            value = value << 4 | UInt64(digit)
            offset += 1
        }
        return value
    }

    /// A line `name` and `count` space-separated decimal numbers (the regression's few statistics:
    /// read through the standard library's exact conversion).
    mutating func doubles(_ name: String, count: Int) throws(EtaModelFileError) -> [Double] {
        try self.name(name)
        var values: [Double] = []
        values.reserveCapacity(count)
        for _ in 0..<count {
            try space(name)
            let start = offset
            while offset < bytes.count, bytes[offset] != Self.space, bytes[offset] != Self.newline { offset += 1 }
            guard offset < bytes.count else { throw .truncated }
            guard let value = Double(String(decoding: bytes[start..<offset], as: UTF8.self)), value.isFinite else {
                throw .malformed(line: lineNumber, field: name)
            }
            values.append(value)
        }
        try endLine(name)
        return values
    }

    /// `<count> <ln speed sum> <last seen hour>` to the line's end; nil for a count of 0 with a sum
    /// of 0 (an empty fleet count), malformed for any other count of 0.
    mutating func paceCount(_ field: String) throws(EtaModelFileError) -> PaceCount? {
        let count = try unsigned(field, below: UInt64(UInt32.max) + 1)
        try space(field)
        let sum = try signed(field)
        try space(field)
        let hour = try unsigned(field, below: UInt64(UInt32.max) + 1)
        try endLine(field)
        if count == 0 && sum == 0 { return nil }
        guard let paceCount = PaceCount(count: UInt32(count), logSpeedSum: sum, lastSeenHour: UInt32(hour)) else {
            throw .malformed(line: lineNumber, field: field)
        }
        return paceCount
    }
}
