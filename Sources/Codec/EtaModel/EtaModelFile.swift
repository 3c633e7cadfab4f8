import Domain

/// The ETA model file (`replay --eta-model-out`, `--eta-model`): UTF-8 text, one field per line, so
/// an analyst can read it; numbers in their shortest exact form, cells in key order, so the same
/// model always gives the same bytes. Documented in `schemas/eta-model.md`.
///
///     tripstream-eta-model 2
///     features 8
///     regimes 300 1500
///     bands 200 500 1000 2000 4000
///     progress 0.375 0.625
///     cell 0.005 4
///     samples <n>
///     gram <36 numbers: the upper triangle of X'X, row by row>     (one line per regime, 3 lines)
///     moments <8 numbers: X'y>                                     (one line per regime, 3 lines)
///     residuals <60 counts>              (one line per distance band × progress band, 18 lines)
///     fleet <count> <ln speed sum> <last seen hour>
///     cells <n>
///     <key, 16 hex digits> <count> <ln speed sum> <last seen hour>   (n lines)
///     end <FNV-1a 64 of every byte before this line, 16 hex digits>
///
/// Read byte by byte: a model of a large fleet is a million cell lines, read when `run` starts.
public enum EtaModelFile {
    public static let version = 2
    static let magic = "tripstream-eta-model"

    // MARK: - Writing

    public static func encode(_ model: FleetEtaModel) -> [UInt8] {
        var text = "\(magic) \(version)\n"
        for shape in shapeLines { text += shape.line + "\n" }
        text += "samples \(model.samples)\n"
        for regime in model.regimes { text += "gram " + regime.gram.map { "\($0)" }.joined(separator: " ") + "\n" }
        for regime in model.regimes { text += "moments " + regime.moments.map { "\($0)" }.joined(separator: " ") + "\n" }
        for histogram in model.residuals {
            text += "residuals " + histogram.bins.map { "\($0)" }.joined(separator: " ") + "\n"
        }
        text += "fleet " + countText(model.paceMap.fleet) + "\n"
        text += "cells \(model.paceMap.cells.count)\n"
        var bytes = Array(text.utf8)
        for (key, count) in model.paceMap.cells.sorted(by: { $0.key < $1.key }) {
            bytes += Array((hex(key) + " " + countText(count) + "\n").utf8)
        }
        bytes += Array("end \(hex(checksum(bytes[...])))\n".utf8)
        return bytes
    }

    /// The lines after the header that say how this build's model is made, each with what an error
    /// calls it: a file whose line differs was learned by another build and is not read.
    private static let shapeLines: [(line: String, field: String)] = [
        ("features \(EtaFeatures.count)", "feature count"),
        ("regimes " + FleetEtaModel.regimeLimits.map(integerText).joined(separator: " "), "regimes"),
        ("bands " + FleetEtaModel.bandLimits.map(integerText).joined(separator: " "), "residual bands"),
        ("progress " + FleetEtaModel.progressLimits.map { "\($0)" }.joined(separator: " "), "progress bands"),
        ("cell \(EtaPaceMap.cellDegrees) \(EtaPaceMap.bucketHours)", "cell size"),
    ]

    private static func integerText(_ value: Double) -> String { "\(Int(value))" }

    private static func countText(_ count: PaceCount) -> String {
        "\(count.count) \(count.logSpeedSum) \(count.lastSeenHour)"
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
        guard bytes.starts(with: Array((magic + " ").utf8)) else { throw .notAnEtaModel }
        var reader = EtaModelReader(bytes)
        try reader.startLine()
        reader.skip(magic.utf8.count + 1)
        let version = try reader.unsigned("header")
        try reader.endLine("header")
        guard version == UInt64(Self.version) else { throw .unsupportedVersion(Int(clamping: version)) }
        for shape in shapeLines { try reader.expectLine(shape.line, or: .incompatible(field: shape.field)) }
        try reader.name("samples")
        try reader.space("samples")
        let samples = try reader.unsigned("samples")
        try reader.endLine("samples")
        let regimeCount = FleetEtaModel.regimeLimits.count + 1
        var grams: [[Double]] = []
        for _ in 0..<regimeCount { grams.append(try reader.doubles("gram", count: RidgeStatistics.gramCount)) }
        var regimes: [RidgeStatistics] = []
        for gram in grams {
            let moments = try reader.doubles("moments", count: EtaFeatures.count)
            guard let statistics = RidgeStatistics(gram: gram, moments: moments) else {
                throw .malformed(line: reader.lineNumber, field: "moments")
            }
            regimes.append(statistics)
        }
        var residuals: [ResidualHistogram] = []
        for _ in 0..<FleetEtaModel.bandCount {
            try reader.name("residuals")
            var bins: [UInt32] = []
            bins.reserveCapacity(ResidualHistogram.binCount)
            for _ in 0..<ResidualHistogram.binCount {
                try reader.space("residuals")
                bins.append(UInt32(try reader.unsigned("residuals", below: UInt64(UInt32.max) + 1)))
            }
            try reader.endLine("residuals")
            residuals.append(ResidualHistogram(bins: bins)!)
        }
        try reader.name("fleet")
        try reader.space("fleet")
        let fleet = try reader.paceCount("fleet") ?? PaceCount()
        try reader.name("cells")
        try reader.space("cells")
        let cellCount = try reader.unsigned("cells", below: 1 << 32)
        try reader.endLine("cells")
        var cells: [UInt64: PaceCount] = [:]
        cells.reserveCapacity(Int(min(cellCount, 1 << 20)))
        var previousKey: UInt64?
        for _ in 0..<cellCount {
            try reader.startLine()
            let key = try reader.hexadecimal("cell entry")
            try reader.space("cell entry")
            // Keys rise line by line: the file's order, and no key twice.
            guard previousKey.map({ $0 < key }) ?? true, let count = try reader.paceCount("cell entry") else {
                throw .malformed(line: reader.lineNumber, field: "cell entry")
            }
            cells[key] = count
            previousKey = key
        }
        let checkedBytes = reader.offset
        try reader.name("end")
        try reader.space("end")
        let hash = try reader.hexadecimal("end")
        try reader.endLine("end")
        guard hash == checksum(bytes[..<checkedBytes]) else { throw .checksumMismatch }
        guard reader.isAtEnd else { throw .malformed(line: reader.lineNumber + 1, field: "end (text after it)") }
        guard let model = FleetEtaModel(paceMap: EtaPaceMap(cells: cells, fleet: fleet), regimes: regimes,
                                        samples: samples, residuals: residuals)
        else { throw .malformed(line: 8, field: "statistics") }
        return model
    }
}
