import Codec
import Domain
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The ETA model file: a model survives a round trip bit for bit, and a file that is not one, of
/// another version, for other features, cut short or damaged is refused with the reason.
@Suite struct EtaModelFileTests {
    static func learnedModel() -> FleetEtaModel {
        var map = EtaPaceMap()
        let start: UnixMillis = 1_372_636_800_000
        for i in 0..<300 {
            // South of the equator and west of Greenwich too: negative keys' bits and ln speed sums.
            let position = i % 3 == 0
                ? Coordinate(latitude: -33.40 - Double(i % 7) * 0.003, longitude: -70.60 - Double(i % 5) * 0.01)
                : Coordinate(latitude: 41.10 + Double(i % 17) * 0.003, longitude: -8.60 - Double(i % 5) * 0.01)
            map.observe(speed: Double(i % 13) * 0.1 + 0.35, at: position, time: start + Int64(i) * 15_000)
        }
        var model = FleetEtaModel(paceMap: map, regimes: FleetEtaModel().regimes, samples: 0,
                                  residuals: FleetEtaModel().residuals)!
        model.learn((0..<50).flatMap { trip in
            (0..<5).map { i in
                let edge = Double(100 + 137 * ((trip + i) % 23))
                return FleetEtaModel.Checkpoint(
                    features: EtaFeatures(values: [1, log(edge + 30), log(Double(i) * 60 + 60), log(3000),
                                                   log(Double(trip % 9) + 1), log(2), 1.4 + Double(i) / 10, 1.2]),
                    remainingSeconds: 8 * edge.squareRoot() * (1 + Double(trip % 3) / 10), fold: trip % 5)
            }
        })
        return model
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func aModelSurvivesARoundTripAndEncodesToTheSameBytes() throws {
        let model = Self.learnedModel()
        let bytes = EtaModelFile.encode(model)
        let decoded = try EtaModelFile.decode(bytes)
        #expect(decoded == model)
        #expect(EtaModelFile.encode(decoded) == bytes)
        let features = EtaFeatures(values: [1, log(1530.0), log(180.0), log(3030.0), log(7.0), log(3.0), 1.5, 1.1])
        #expect(decoded.estimate(features) == model.estimate(features))
        let place = Coordinate(latitude: -33.403, longitude: -70.61)
        #expect(decoded.logSpeed(at: place, time: 1_372_636_800_000) == model.logSpeed(at: place, time: 1_372_636_800_000))
        #expect(model.paceMap.cells.values.contains { $0.logSpeedSum < 0 }, "slow cells: negative sums")
        #expect(Self.text(bytes).hasPrefix("tripstream-eta-model 2\nfeatures 8\nregimes 300 1500\n"))
        #expect(model.paceMap.cells.count > 10)
    }

    @Test func anEmptyModelRoundTrips() throws {
        #expect(try EtaModelFile.decode(EtaModelFile.encode(FleetEtaModel())) == FleetEtaModel())
    }

    @Test func aFileOfAnotherKindIsNotAModel() {
        #expect(throws: EtaModelFileError.notAnEtaModel) {
            try EtaModelFile.decode(Array("{\"userId\":\"u1\"}\n".utf8))
        }
        #expect(throws: EtaModelFileError.notAnEtaModel) { try EtaModelFile.decode([]) }
    }

    @Test func anotherVersionIsNamed() {
        var text = Self.text(EtaModelFile.encode(Self.learnedModel()))
        text = text.replacingOccurrences(of: "tripstream-eta-model 2\n", with: "tripstream-eta-model 3\n")
        #expect(throws: EtaModelFileError.unsupportedVersion(3)) { try EtaModelFile.decode(Array(text.utf8)) }
    }

    /// The first format (one regression, Welford cells) is refused by name, with what to do.
    @Test func aVersionOneModelIsRefusedWithWhatToDo() throws {
        let versionOne = "tripstream-eta-model 1\nfeatures 7\nbands 200 500 1000 2000 4000\ncell 0.005 4\nsamples 0\n"
        let error = try #require(throws: EtaModelFileError.self) { try EtaModelFile.decode(Array(versionOne.utf8)) }
        #expect(error == .unsupportedVersion(1))
        #expect(error.description.contains("replay --eta-model-out"))
    }

    @Test func aModelOfOtherBandsIsIncompatible() {
        let text = Self.text(EtaModelFile.encode(Self.learnedModel()))
            .replacingOccurrences(of: "bands 200 500", with: "bands 250 500")
        #expect(throws: EtaModelFileError.incompatible(field: "residual bands")) {
            try EtaModelFile.decode(Array(text.utf8))
        }
    }

    @Test func aFileCutShortIsTruncated() {
        let bytes = EtaModelFile.encode(Self.learnedModel())
        #expect(throws: EtaModelFileError.truncated) { try EtaModelFile.decode(Array(bytes.prefix(bytes.count / 2))) }
        let withoutEnd = Array(bytes.prefix(through: bytes.dropLast().lastIndex(of: UInt8(ascii: "\n"))!))
        #expect(throws: EtaModelFileError.truncated) { try EtaModelFile.decode(withoutEnd) }
    }

    @Test func aChangedDigitIsCaughtByTheChecksum() throws {
        var bytes = EtaModelFile.encode(Self.learnedModel())
        let samplesLine = try #require(Self.text(bytes).range(of: "samples 250\n"))
        let digit = Self.text(bytes).utf8.distance(from: Self.text(bytes).startIndex, to: samplesLine.lowerBound) + 8
        bytes[digit] = UInt8(ascii: "3")  // samples 350: well-formed, but not what was written
        #expect(throws: EtaModelFileError.checksumMismatch) { try EtaModelFile.decode(bytes) }
    }

    @Test func aGarbledLineIsNamedByItsNumber() {
        let text = Self.text(EtaModelFile.encode(Self.learnedModel()))
            .replacingOccurrences(of: "\nmoments ", with: "\nmoments x")
        #expect(throws: EtaModelFileError.malformed(line: 11, field: "moments")) {
            try EtaModelFile.decode(Array(text.utf8))
        }
    }

    /// Cell lines are read byte by byte: a short key, a letter in a count, keys out of order or
    /// twice, an empty count, or a line cut short are each named.
    @Test func aDamagedCellLineIsNamed() throws {
        let text = Self.text(EtaModelFile.encode(Self.learnedModel()))
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let first = try #require(lines.firstIndex { $0.hasPrefix("cells ") }) + 1
        func decode(_ lines: [String]) throws(EtaModelFileError) { _ = try EtaModelFile.decode(Array(lines.joined(separator: "\n").utf8)) }
        let line = lines[first], fields = line.split(separator: " ").map(String.init)
        let damages = [String(line.dropFirst()),  // a key of 15 digits
                       [fields[0], "x" + fields[1], fields[2], fields[3]].joined(separator: " "),
                       [fields[0], "0", "0", fields[3]].joined(separator: " "),  // an empty count
                       [fields[0].uppercased(), fields[1], fields[2], fields[3]].joined(separator: " ")]
        for damage in damages where damage != line {
            var damaged = lines
            damaged[first] = damage
            #expect(throws: EtaModelFileError.malformed(line: first + 1, field: "cell entry")) { try decode(damaged) }
        }
        var swapped = lines
        swapped.swapAt(first, first + 1)
        #expect(throws: EtaModelFileError.malformed(line: first + 2, field: "cell entry")) { try decode(swapped) }
        lines[first] = String(lines[first].prefix(20))
        #expect(throws: EtaModelFileError.self) { try decode(Array(lines.prefix(first + 1))) }
        #expect(throws: EtaModelFileError.truncated) {
            _ = try EtaModelFile.decode(Array(text.utf8.prefix(text.utf8.count - 30)))
        }
    }
}
