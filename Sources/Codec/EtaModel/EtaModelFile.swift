import Domain

/// The ETA model file (`replay --eta-model-out`, `--eta-model`): UTF-8 text, one field per line, so
/// an analyst can read it; numbers in their shortest exact form, cells in key order, so the same
/// model always gives the same bytes. Documented in `schemas/eta-model.md`.
///
///     tripstream-eta-model 1
///     features 7
///     bands 200 500 1000 2000 4000
///     cell 0.005 4
///     samples <n>
///     gram <28 numbers: the upper triangle of X'X, row by row>
///     moments <7 numbers: X'y>
///     residuals <60 counts>            (one line per band, 6 lines)
///     fleet <count> <mean> <squared deviations> <last seen hour>
///     cells <n>
///     <key, 16 hex digits> <count> <mean> <squared deviations> <last seen hour>   (n lines)
///     end <FNV-1a 64 of every byte before this line, 16 hex digits>
public enum EtaModelFile {
    public static let version = 1
    static let magic = "tripstream-eta-model"

    // MARK: - Writing

    public static func encode(_ model: FleetEtaModel) -> [UInt8] {
        var text = "\(magic) \(version)\n"
        text += "features \(EtaFeatures.count)\n"
        text += "bands " + FleetEtaModel.bandLimits.map(integerText).joined(separator: " ") + "\n"
        text += "cell \(EtaPaceMap.cellDegrees) \(EtaPaceMap.bucketHours)\n"
        text += "samples \(model.samples)\n"
        text += "gram " + model.gram.map { "\($0)" }.joined(separator: " ") + "\n"
        text += "moments " + model.moments.map { "\($0)" }.joined(separator: " ") + "\n"
        for histogram in model.residuals {
            text += "residuals " + histogram.bins.map { "\($0)" }.joined(separator: " ") + "\n"
        }
        text += "fleet " + countText(model.paceMap.fleet) + "\n"
        text += "cells \(model.paceMap.cells.count)\n"
        for (key, count) in model.paceMap.cells.sorted(by: { $0.key < $1.key }) {
            text += hex(key) + " " + countText(count) + "\n"
        }
        var bytes = Array(text.utf8)
        bytes += Array("end \(hex(checksum(bytes[...])))\n".utf8)
        return bytes
    }

    private static func integerText(_ value: Double) -> String { "\(Int(value))" }

    private static func countText(_ count: WelfordCount) -> String {
        "\(count.count) \(count.mean) \(count.squaredDeviations) \(count.lastSeenHour)"
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    // MARK: - Reading

    public static func decode(_ bytes: [UInt8]) throws(EtaModelFileError) -> FleetEtaModel {
        guard bytes.starts(with: Array(magic.utf8)) else { throw .notAnEtaModel }
        var lines = Lines(bytes)
        let header = try lines.next("header")
        guard header.count == 2, let version = Int(header[1]) else { throw .malformed(line: 1, field: "header") }
        guard version == Self.version else { throw .unsupportedVersion(version) }
        guard try lines.fields("features", count: 1) == ["\(EtaFeatures.count)"] else {
            throw .incompatible(field: "feature count")
        }
        guard try lines.fields("bands", count: FleetEtaModel.bandLimits.count)
            == FleetEtaModel.bandLimits.map(integerText)
        else { throw .incompatible(field: "residual bands") }
        guard try lines.fields("cell", count: 2) == ["\(EtaPaceMap.cellDegrees)", "\(EtaPaceMap.bucketHours)"] else {
            throw .incompatible(field: "cell size")
        }
        let samples = try lines.numbers("samples", count: 1, as: UInt64.self)[0]
        let k = EtaFeatures.count
        let gram = try lines.numbers("gram", count: k * (k + 1) / 2, as: Double.self)
        let moments = try lines.numbers("moments", count: k, as: Double.self)
        var residuals: [ResidualHistogram] = []
        for _ in 0...FleetEtaModel.bandLimits.count {
            let bins = try lines.numbers("residuals", count: ResidualHistogram.binCount, as: UInt32.self)
            guard let histogram = ResidualHistogram(bins: bins) else {
                throw .malformed(line: lines.lineNumber, field: "residuals")
            }
            residuals.append(histogram)
        }
        let fleetFields = try lines.fields("fleet", count: 4)
        let fleet = try welford(fleetFields.map { $0[...] }, line: lines.lineNumber, field: "fleet")
        let cellCount = try lines.numbers("cells", count: 1, as: Int.self)[0]
        guard cellCount >= 0 else { throw .malformed(line: lines.lineNumber, field: "cells") }
        var cells: [UInt64: WelfordCount] = [:]
        cells.reserveCapacity(min(cellCount, 1 << 20))
        for _ in 0..<cellCount {
            let fields = try lines.next("cell entry")
            guard fields.count == 5, fields[0].utf8.count == 16, let key = UInt64(fields[0], radix: 16),
                cells[key] == nil
            else { throw .malformed(line: lines.lineNumber, field: "cell entry") }
            cells[key] = try welford(Array(fields[1...]), line: lines.lineNumber, field: "cell entry")
        }
        let checkedBytes = lines.offset
        let end = try lines.next("end")
        guard end.count == 2, end[0] == "end" else { throw .malformed(line: lines.lineNumber, field: "end") }
        guard end[1] == hex(checksum(bytes[..<checkedBytes])) else { throw .checksumMismatch }
        guard lines.isAtEnd else { throw .malformed(line: lines.lineNumber + 1, field: "end (text after it)") }
        guard let model = FleetEtaModel(paceMap: EtaPaceMap(cells: cells, fleet: fleet), gram: gram,
                                        moments: moments, samples: samples, residuals: residuals)
        else { throw .malformed(line: 6, field: "statistics") }
        return model
    }

    private static func welford(_ fields: [Substring], line: Int, field: String) throws(EtaModelFileError)
        -> WelfordCount
    {
        guard fields.count == 4, let n = UInt32(fields[0]), let mean = Float(fields[1]),
            let deviations = Float(fields[2]), let hour = UInt32(fields[3])
        else { throw .malformed(line: line, field: field) }
        if n == 0 && mean == 0 && deviations == 0 { return WelfordCount() }
        guard let count = WelfordCount(count: n, mean: mean, squaredDeviations: deviations, lastSeenHour: hour)
        else { throw .malformed(line: line, field: field) }
        return count
    }

    /// The file's lines, split into space-separated fields.
    private struct Lines {
        let bytes: [UInt8]
        private(set) var offset = 0
        private(set) var lineNumber = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { offset >= bytes.count }

        mutating func next(_ field: String) throws(EtaModelFileError) -> [Substring] {
            guard offset < bytes.count else { throw .truncated }
            guard let newline = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) else { throw .truncated }
            lineNumber += 1
            let line = bytes[offset..<newline]
            offset = newline + 1
            guard let text = String(validating: line, as: UTF8.self) else {
                throw .malformed(line: lineNumber, field: field)
            }
            return text.split(separator: " ", omittingEmptySubsequences: false)
        }

        /// The fields after the line's name, `count` of them.
        mutating func fields(_ name: String, count: Int) throws(EtaModelFileError) -> [String] {
            let fields = try next(name)
            guard fields.count == count + 1, fields[0] == name else { throw .malformed(line: lineNumber, field: name) }
            return fields.dropFirst().map(String.init)
        }

        mutating func numbers<Number: LosslessStringConvertible>(_ name: String, count: Int, as: Number.Type)
            throws(EtaModelFileError) -> [Number]
        {
            var numbers: [Number] = []
            for field in try fields(name, count: count) {
                guard let number = Number(field) else { throw .malformed(line: lineNumber, field: name) }
                numbers.append(number)
            }
            return numbers
        }
    }
}
