@testable import Codec
import Domain
import Simulation
import Testing

/// Member names told apart by comparing them with the expected one (`JSONReader.skipKey`, used by
/// `FixDecoder` for the member that usually comes next) decide exactly as reading them as strings.
@Suite struct MemberPredictionTests {
    /// Whether `skipKey(quoted)` takes the first member name of `json`, and where the reader is after it.
    static func skip(_ quoted: String, in json: String) throws -> (taken: Bool, index: Int, start: Int) {
        try Array(json.utf8).withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            var cursor = try reader.beginObject()
            #expect(try reader.nextMember(&cursor))
            let start = reader.index
            let words = Array(quoted.utf8).withUnsafeBytes { KeyWords($0) }
            let taken = reader.skipKey(words)
            return (taken, reader.index, start)
        }
    }

    @Test(arguments: ["\"speed\"", "\"userId\"", "\"latitude\"", "\"createdAt\"", "\"longitude\""])
    func takesTheNameAndItsColonWhereverItLies(_ quoted: String) throws {
        for json in ["{\(quoted):1,\"padding\":\"\(String(repeating: "x", count: 40))\"}", "{\(quoted) :1,\"p\":2}",
                     "{\(quoted):\"v\"}"]
        {
            let result = try Self.skip(quoted, in: json)
            #expect(result.taken, "\(json)")
            let colon = json.utf8.firstIndex(of: UInt8(ascii: ":"))!
            #expect(result.index == json.utf8.distance(from: json.utf8.startIndex, to: colon) + 1, "\(json)")
        }
    }

    @Test(arguments: ["\"speed\"", "\"userId\"", "\"latitude\"", "\"createdAt\"", "\"longitude\""])
    func leavesAnyOtherNameToReadKey(_ quoted: String) throws {
        let bytes = Array(quoted.utf8)
        var others: [String] = []
        for position in bytes.indices {  // any byte of the name or its quotes changed
            var changed = bytes
            changed[position] ^= 0x01
            others.append(String(decoding: changed, as: UTF8.self))
        }
        let name = String(quoted.dropFirst().dropLast())
        others += ["\"\(name)x\"", "\"\(name.dropLast())\"", "\"\\u00\(String(bytes[1], radix: 16))\(name.dropFirst())\""]
        for other in others {
            let json = "{\(other):1,\"padding\":\"xxxxxxxxxxxxxxxx\"}"
            guard let result = try? Self.skip(quoted, in: json) else { continue }  // no longer a name
            #expect(!result.taken, "\(json)")
            #expect(result.index == result.start, "\(json): the reader moved")
        }
        // No colon after the name, and a name too near the end for a word: left to readKey.
        for json in ["{\(quoted),\"a\":1,\"padding\":\"xxxxxxxxxxxx\"}", "{\(quoted)}"] {
            guard let result = try? Self.skip(quoted, in: json) else { continue }
            #expect(!result.taken && result.index == result.start, "\(json)")
        }
    }

    /// What the decoder makes of a line with the prediction and without: the same fix or the same error.
    static func bothWays(_ line: [UInt8]) -> (predicted: Result<Fix, DecodeError>, read: Result<Fix, DecodeError>) {
        line.withUnsafeBytes { bytes in
            (Result { () throws(DecodeError) in try FixDecoder.decode(bytes, predictingNames: true) },
             Result { () throws(DecodeError) in try FixDecoder.decode(bytes, predictingNames: false) })
        }
    }

    static let lines = [
        #"{"userId":"driver-7","createdAt":"2026-01-05T08:00:00.000Z","latitude":41.1716688,"longitude":-8.7032149,"accuracy":14,"speed":11.8,"deviceId":"device-8"}"#,
        #"{"userId":"u","createdAt":"2026-01-05T08:00:00Z","latitude":1,"longitude":2,"accuracy":3,"speed":4,"course":5,"altitude":6,"deviceId":"d","replayed":true,"metadata":{"k":"v"}}"#,
        #"{ "speed" : 4 , "userId":"u", "extra":[1,{"userId":"x"}], "longitude":2,"latitude":1,"createdAt":"2026-01-05T08:00:00Z" }"#,
    ]

    @Test(arguments: lines) func anyByteChangedDecodesAsWithoutPrediction(_ line: String) {
        let bytes = Array(line.utf8)
        var fixes = 0, errors = 0
        for position in bytes.indices {
            for value in 0...255 {
                var changed = bytes
                changed[position] = UInt8(value)
                let (predicted, read) = Self.bothWays(changed)
                switch (predicted, read) {
                case let (.success(a), .success(b)):
                    #expect(a == b, "\(String(decoding: changed, as: UTF8.self))")
                    fixes += 1
                case let (.failure(a), .failure(b)):
                    #expect(a == b, "\(String(decoding: changed, as: UTF8.self))")
                    errors += 1
                default:
                    Issue.record("\(String(decoding: changed, as: UTF8.self)): \(predicted) against \(read)")
                }
            }
        }
        #expect(fixes > bytes.count && errors > bytes.count * 100)
    }

    @Test func membersInAnyOrderGiveTheSameFix() throws {
        let members = [#""userId":"u""#, #""createdAt":"2026-01-05T08:00:00.250Z""#, #""latitude":41.5"#,
                       #""longitude":-8.25"#, #""accuracy":3"#, #""speed":4"#, #""course":5"#, #""altitude":6"#,
                       #""deviceId":"d""#, #""replayed":true"#, #""metadata":{"k":"v"}"#, #""other":null"#]
        let expected = try FixDecoder.decode(Array(("{" + members.joined(separator: ",") + "}").utf8))
        var random = SeededRandom(seed: 11)
        for _ in 0..<300 {
            let line = Array(("{" + members.shuffled(using: &random).joined(separator: ",") + "}").utf8)
            let (predicted, read) = Self.bothWays(line)
            #expect(try predicted.get() == expected)
            #expect(try read.get() == expected)
        }
    }
}
