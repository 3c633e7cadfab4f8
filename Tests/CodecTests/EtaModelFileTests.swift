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
        var model = FleetEtaModel()
        let start: UnixMillis = 1_372_636_800_000
        for i in 0..<300 {
            let position = Coordinate(latitude: 41.10 + Double(i % 17) * 0.003, longitude: -8.60 - Double(i % 5) * 0.01)
            model.observeStep(speed: Double(i % 13) + 0.5, at: position, time: start + Int64(i) * 15_000)
        }
        for trip in 0..<50 {
            model.learn((0..<5).map { i in
                let edge = Double(100 + 137 * ((trip + i) % 23))
                return (EtaFeatures(values: [1, log(edge + 30), log(Double(i) * 60 + 60), log(3000),
                                             log(Double(trip % 9) + 1), log(2), 1.4 + Double(i) / 10]),
                        8 * edge.squareRoot() * (1 + Double(trip % 3) / 10))
            })
        }
        return model
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func aModelSurvivesARoundTripAndEncodesToTheSameBytes() throws {
        let model = Self.learnedModel()
        let bytes = EtaModelFile.encode(model)
        let decoded = try EtaModelFile.decode(bytes)
        #expect(decoded == model)
        #expect(EtaModelFile.encode(decoded) == bytes)
        let features = EtaFeatures(values: [1, log(1530.0), log(180.0), log(3030.0), log(7.0), log(3.0), 1.5])
        #expect(decoded.estimate(features) == model.estimate(features))
        #expect(Self.text(bytes).hasPrefix("tripstream-eta-model 1\nfeatures 7\n"))
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
        text = text.replacingOccurrences(of: "tripstream-eta-model 1\n", with: "tripstream-eta-model 2\n")
        #expect(throws: EtaModelFileError.unsupportedVersion(2)) { try EtaModelFile.decode(Array(text.utf8)) }
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
        #expect(throws: EtaModelFileError.malformed(line: 7, field: "moments")) {
            try EtaModelFile.decode(Array(text.utf8))
        }
    }
}
