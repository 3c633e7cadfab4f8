import LZ4IO

/// A block of fix lines as the reader hands it out, and the workers' decoded shares of it.
final class ReplayBlock: @unchecked Sendable {
    // Safe: the calling thread fills `batch` between forks; during a fork the workers only read
    // `batch`, and each writes only its own chunk.
    var batch = LineBatch()
    let chunks: [DecodedChunk]
    private let partitioner: KeyPartitioner

    init(partitioner: KeyPartitioner, workers: Int) {
        self.partitioner = partitioner
        chunks = (0..<workers).map { _ in DecodedChunk(partitions: partitioner.partitions) }
    }

    /// Each partition's lines in the decoded block (how much folding each has to do).
    var linesByPartition: [Int] {
        (0..<partitioner.partitions).map { partition in chunks.reduce(0) { $0 + $1.byPartition[partition].count } }
    }

    /// Decodes worker `worker`'s contiguous share of the lines, with the too-long lines that fall
    /// before its last line (the last worker also takes those after every line).
    func decode(worker: Int) {
        let count = batch.count, workers = chunks.count
        let lower = count * worker / workers, upper = count * (worker + 1) / workers
        let first = lower == 0 ? Int.min : batch[lower - 1].number + 1
        let last = worker == workers - 1 ? Int.max : (upper == 0 ? Int.min : batch[upper - 1].number + 1)
        chunks[worker].decode(batch, lines: lower..<upper, tooLongIn: first..<max(first, last), partitioner: partitioner)
    }
}
