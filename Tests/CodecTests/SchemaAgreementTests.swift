import Codec
import Domain
import Foundation
import Testing

@Suite("Schemas agree with the code")
struct SchemaAgreementTests {
    func schema(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: PackagePaths.schemas.appendingPathComponent("\(name).schema.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func deadLetterReasonsAreTheRejectionReasons() throws {
        let properties = try #require(try schema("dead-letter")["properties"] as? [String: Any])
        let reason = try #require(properties["reason"] as? [String: Any])
        #expect(Set(reason["enum"] as? [String] ?? []) == Set(RejectionReason.allCases.map(\.rawValue)))
    }

    @Test func eventTypesAreTheEventTypes() throws {
        let defs = try #require(try schema("event")["$defs"] as? [String: Any])
        for type in EventType.allCases {
            let key = String(type.name.dropFirst("user.".count))
            #expect(defs[key] != nil, "no $defs entry for \(type.name)")
            #expect(
                FileManager.default.fileExists(
                    atPath: PackagePaths.schemas.appendingPathComponent("events/\(type.name).schema.json").path))
        }
    }

    /// The input examples decode with our decoders, and every known-bad input is rejected by them
    /// as by the schema.
    @Test func inputExamplesAgreeWithTheDecoders() throws {
        func lines(_ file: String) throws -> [[UInt8]] {
            let data = try Data(contentsOf: PackagePaths.schemas.appendingPathComponent("examples/\(file)"))
            return data.split(separator: UInt8(ascii: "\n")).map { Array($0) }
        }
        for line in try lines("fixes.ndjson") { _ = try FixDecoder.decode(line) }
        for line in try lines("trip-commands.ndjson") { _ = try TripCommandDecoder.decode(line) }
        for line in try lines("geofences.ndjson") { _ = try GeofenceDecoder.decode(key: nil, value: line) }
        for line in try lines("invalid/fix.ndjson") {
            #expect((try? FixDecoder.decode(line)) == nil, "\(String(decoding: line, as: UTF8.self))")
        }
        for line in try lines("invalid/trip-command.ndjson") {
            #expect((try? TripCommandDecoder.decode(line)) == nil, "\(String(decoding: line, as: UTF8.self))")
        }
        for line in try lines("invalid/geofence.ndjson") {
            #expect(
                (try? GeofenceDecoder.decode(key: nil, value: line)) == nil, "\(String(decoding: line, as: UTF8.self))")
        }
        for line in try lines("events.ndjson") { _ = try EventDecoder.decode(line) }
        for line in try lines("dead-letters.ndjson") { _ = try DeadLetterDecoder.decode(line) }
    }
}
