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

/// `DIR/{events,eta,dead-letters,trip-summaries}.ndjson`, or `.ndjson.lz4` compressed, written under temporary
/// names and renamed into place together when all are finished (``StagedOutputs``), as `tripstream replay` over
/// files writes them: a replay that fails keeps the previous run's files.
final class ReplayFileSink: ReplayOutputSink {
    private struct Output {
        var write: ([UInt8]) throws -> Void
        var close: () throws -> Void
    }

    private let staged: StagedOutputs
    private let outputs: [Output]

    init(directory: String, compressed: Bool) throws {
        try ReplayJob.makeDirectory(directory)
        staged = StagedOutputs(paths: ["events", "eta", "dead-letters", "trip-summaries"].map {
            directory + "/\($0).ndjson" + (compressed ? ".lz4" : "")
        })
        outputs = try staged.temporaryPaths.map { path in
            guard compressed else {
                let writer = try ReplayJob.openOutput(path)
                return Output(write: { try writer.write($0) }, close: { try writer.close() })
            }
            let writer = try LZ4FileWriter(path: path)
            return Output(write: { try writer.write($0) }, close: { try writer.close() })
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
        for output in outputs { try output.close() }
        try staged.publish()
    }
}
