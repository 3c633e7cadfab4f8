import LZ4IO

#if canImport(Glibc)
import Glibc
#endif

/// Where a replay of history writes its outputs: files in a directory, or topics under a prefix.
protocol ReplayOutputSink: AnyObject {
    /// Writes (or produces) a batch of outputs and empties it.
    func write(_ output: inout OutputBatch) throws
    /// Makes everything written final: files renamed into place, records delivered.
    func finish() throws
}

/// `DIR/{events,eta,dead-letters,trip-summaries}.ndjson`, or `.ndjson.lz4` compressed, each written under
/// `.partial` and renamed when finished, as `tripstream replay` over files writes them.
final class ReplayFileSink: ReplayOutputSink {
    private struct Output {
        var path: String
        var partial: String
        var write: ([UInt8]) throws -> Void
        var close: () throws -> Void
    }

    private let outputs: [Output]

    init(directory: String, compressed: Bool) throws {
        try ReplayJob.makeDirectory(directory)
        outputs = try ["events", "eta", "dead-letters", "trip-summaries"].map { name in
            let path = directory + "/\(name).ndjson" + (compressed ? ".lz4" : "")
            guard compressed else {
                let writer = try ReplayJob.openOutput(path)
                return Output(path: path, partial: writer.path, write: { try writer.write($0) },
                              close: { try writer.close() })
            }
            let writer = try LZ4FileWriter(path: path + ".partial")
            return Output(path: path, partial: path + ".partial", write: { try writer.write($0) },
                          close: { try writer.close() })
        }
    }

    func write(_ output: inout OutputBatch) throws {
        try outputs[0].write(output.events.values)
        try outputs[1].write(output.eta.values)
        try outputs[2].write(output.deadLetters.values)
        try outputs[3].write(output.tripSummaries.values)
        output.removeAll()
    }

    func finish() throws {
        for output in outputs {
            try output.close()
            guard rename(output.partial, output.path) == 0 else {
                throw ReplayError("cannot rename \(output.partial) to \(output.path): \(String(cString: strerror(errno)))")
            }
        }
    }
}
