import Codec
import Domain
import Foundation
import Testing

/// Runs `schemas/validate.py` (Python jsonschema) on what our encoders write: the schemas are the
/// contract, so every record kind we produce must validate.
@Suite("Schemas", .serialized)
struct SchemaValidationTests {
    /// Records of every kind our encoders produce, as NDJSON, by schema name.
    static func producedRecords() -> [(schema: String, file: String, lines: [[UInt8]])] {
        var events: [[UInt8]] = []
        var etas: [[UInt8]] = []
        var summaries: [[UInt8]] = []
        for event in Fixtures.allEvents {
            var summary: [UInt8] = []
            if TripSummaryEncoder.encode(event, actualCreatedAt: Fixtures.processedAt, into: &summary) {
                summaries.append(summary)
            }
            var bytes: [UInt8] = []
            EventEncoder.encode(event, actualCreatedAt: Fixtures.processedAt, into: &bytes)
            events.append(bytes)
            var eta: [UInt8] = []
            if EtaEncoder.encode(event, actualCreatedAt: Fixtures.processedAt, into: &eta) { etas.append(eta) }
        }
        var users: [[UInt8]] = []
        for (i, event) in Fixtures.allEvents.enumerated() where i % 3 != 2 {
            let snapshot = UserSnapshot(
                userId: event.userId, deviceId: event.deviceId, metadata: event.userMetadata,
                lastFixAt: i == 0 ? nil : event.createdAt, location: event.location,
                locationAccuracy: event.locationAccuracy, speed: i % 2 == 0 ? 4.25 : .nan, trip: event.trip,
                geofences: event.geofence.map { [UserSnapshot.Presence(geofence: $0, enteredAt: Fixtures.t0)] } ?? [])
            var bytes: [UInt8] = []
            UserStateEncoder.encode(snapshot, updatedAt: Fixtures.processedAt, into: &bytes)
            users.append(bytes)
        }
        var letters: [[UInt8]] = []
        for (i, reason) in RejectionReason.allCases.enumerated() {
            let value: [UInt8]? =
                i % 3 == 0 ? [0xFF, 0xFE, UInt8(i)] : i % 3 == 1 ? Array("{\"userId\":\(i)}".utf8) : nil
            let letter = DeadLetter(
                reason: reason, detail: "detail \(i) \"quoted\"", topic: "tripstream.locations", partition: Int32(i),
                offset: Int64(i) * 1000, key: i % 2 == 0 ? Array("user-\(i)".utf8) : nil, value: value,
                receivedAt: Fixtures.processedAt)
            var bytes: [UInt8] = []
            DeadLetterEncoder.encode(letter, into: &bytes)
            letters.append(bytes)
        }
        return [
            ("event", "events.ndjson", events), ("eta-update", "eta-updates.ndjson", etas),
            ("user-state", "user-states.ndjson", users), ("dead-letter", "dead-letters.ndjson", letters),
            ("trip-summary", "trip-summaries.ndjson", summaries),
        ]
    }

    static func python() -> (available: Bool, why: String) {
        let result = run(["python3", "-c", "import jsonschema, referencing"])
        return (result.status == 0, result.output)
    }

    static func run(_ arguments: [String]) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do {
            try process.run()
        } catch {
            return (127, "\(error)")
        }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test func everythingWeEncodeValidates() throws {
        let python = Self.python()
        guard python.available else {
            Issue.record("python3 with jsonschema is not available, schemas not checked: \(python.why)")
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tripstream-schemas-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = PackagePaths.schemas.appendingPathComponent("validate.py").path
        for (schema, file, lines) in Self.producedRecords() {
            let url = directory.appendingPathComponent(file)
            try Data(lines.joined(separator: [UInt8(ascii: "\n")]) + [UInt8(ascii: "\n")]).write(to: url)
            let result = Self.run(["python3", script, schema, url.path])
            #expect(result.status == 0, "\(schema): \(result.output)")
            // Regenerate schemas/examples with TRIPSTREAM_WRITE_EXAMPLES=1.
            if ProcessInfo.processInfo.environment["TRIPSTREAM_WRITE_EXAMPLES"] == "1" {
                let target = PackagePaths.schemas.appendingPathComponent("examples/\(file)")
                try? FileManager.default.removeItem(at: target)
                try FileManager.default.copyItem(at: url, to: target)
            }
        }
        // Each event type on its own schema file too.
        for event in Fixtures.allEvents {
            let url = directory.appendingPathComponent("one.json")
            try Data(EventEncoder.string(event, actualCreatedAt: 0).utf8).write(to: url)
            let result = Self.run(["python3", script, "events/\(event.type.name)", url.path])
            #expect(result.status == 0, "\(event.type.name): \(result.output)")
        }
    }

    @Test func selfTestPasses() {
        guard Self.python().available else {
            Issue.record("python3 with jsonschema is not available, schemas/validate.py --self-test not run")
            return
        }
        let script = PackagePaths.schemas.appendingPathComponent("validate.py").path
        let result = Self.run(["python3", script, "--self-test"])
        #expect(result.status == 0, "\(result.output)")
    }

    /// The strict layer: an event of ours (with `_id`) that lacks what the encoder always writes is rejected.
    @Test func schemaIsAsStrictAsTheEncoder() throws {
        guard Self.python().available else {
            Issue.record("python3 with jsonschema is not available")
            return
        }
        let exited = EventEncoder.string(Fixtures.allEvents[1], actualCreatedAt: 0)
        let broken = [
            exited.replacingOccurrences(of: #","duration":105"#, with: ""),
            exited.replacingOccurrences(of: #""live":true"#, with: #""live":true,"extra":1"#),
            exited.replacingOccurrences(of: #"0123456789abcdef00000002"#, with: "0123456789ABCDEF00000002"),
            exited.replacingOccurrences(
                of: #""createdAt":"2026-05-12T14:30:02.000Z""#, with: #""createdAt":"2026-05-12T14:30:02Z""#),
            exited.replacingOccurrences(of: #","actualCreatedAt":"1970-01-01T00:00:00.000Z""#, with: ""),
            exited.replacingOccurrences(
                of: #""type":"user.exited_geofence""#, with: #""type":"user.entered_geofence""#),
        ]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tripstream-strict-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = PackagePaths.schemas.appendingPathComponent("validate.py").path
        for (i, text) in broken.enumerated() {
            #expect(text != exited)
            let url = directory.appendingPathComponent("bad\(i).json")
            try Data(text.utf8).write(to: url)
            #expect(Self.run(["python3", script, "event", url.path]).status == 1, "accepted: \(text)")
        }
    }
}
