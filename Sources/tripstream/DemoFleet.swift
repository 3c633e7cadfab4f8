import Codec
import Domain
import Foundation
import LZ4IO
import Simulation

/// The demo's recorded fleets: the bundled Porto sample, or a directory of the same three files, played
/// as a live fleet. (The simulated one is `FleetSimulator` with `Liveliness.demo`.)
enum DemoFleet {
    /// The recorded rides in `directory`: `geofences.ndjson`, `commands.ndjson`, and `fixes.ndjson` or
    /// `fixes.ndjson.lz4`, as `tripstream replay` reads them. Lines that do not decode are an error
    /// naming the file and line: a sample is not a stream to dead-letter.
    static func recorded(directory: String, start: UnixMillis, duration: Int64) throws -> RecordedFleet {
        var geofences: [Geofence] = []
        try eachLine(of: directory + "/geofences.ndjson") { line, bytes in
            if case let .upsert(geofence) = try GeofenceDecoder.decode(key: nil as String?, value: bytes) {
                geofences.append(geofence)
            }
        }
        var inputs: [SimulatedRecord] = []
        try eachLine(of: directory + "/commands.ndjson") { _, bytes in
            inputs.append(.command(try TripCommandDecoder.decode(bytes)))
        }
        let plain = directory + "/fixes.ndjson"
        let fixes = FileManager.default.fileExists(atPath: plain) ? plain : plain + ".lz4"
        try eachLine(of: fixes) { _, bytes in inputs.append(.fix(try FixDecoder.decode(bytes))) }
        guard !geofences.isEmpty, inputs.contains(where: { if case .fix = $0 { true } else { false } }) else {
            throw CommandFailure("--fleet \(directory): no geofences or no fixes there")
        }
        return RecordedFleet(geofences: geofences, inputs: inputs, start: start, stepSeconds: 5, duration: duration)
    }

    /// Where the bundled Porto sample is: `samples/porto` in the current directory or in a directory above
    /// the executable (the repository of a `.build/…/tripstream`).
    static func portoSample() throws -> String {
        var candidates = ["samples/porto"]
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            candidates.append(directory.appendingPathComponent("samples/porto").path)
            directory.deleteLastPathComponent()
        }
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0 + "/geofences.ndjson") })
        else {
            throw CommandFailure("--fleet porto: samples/porto not found here or above the executable; run from the "
                + "repository, or give the sample's directory: --fleet PATH/samples/porto")
        }
        return found
    }

    private static func eachLine(of path: String, _ body: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
        let reader: LineReader
        do { reader = try LineReader(path: path) } catch { throw CommandFailure("--fleet: \(error)") }
        try reader.forEachLine(onLineTooLong: { throw CommandFailure("--fleet: \(path) line \($0.lineNumber) is too long") }) {
            line in
            do { try body(line.number, line.bytes) } catch let error as DecodeError {
                throw CommandFailure("--fleet: \(path) line \(line.number): \(error)")
            }
        }
    }
}
