import LZ4IO

/// A block of fix lines as the reader hands it out, and its decoded pieces.
///
/// The lines are decoded in `pieces` contiguous pieces, taken by whichever thread is free: while one
/// block is folded, the threads that run out of partitions to fold decode the next block's pieces
/// (`ReplayJob`), instead of waiting at the join for the thread folding the last partition.
final class ReplayBlock: @unchecked Sendable {
    // Safe: the calling thread fills `batch` between forks; during a fork the workers only read
    // `batch`, and each piece's chunk is written by the one worker that took the piece.
    var batch = LineBatch()
    let chunks: [DecodedChunk]
    private let partitioner: KeyPartitioner

    init(partitioner: KeyPartitioner, pieces: Int) {
        self.partitioner = partitioner
        chunks = (0..<pieces).map { _ in DecodedChunk(partitions: partitioner.partitions) }
    }

    /// Each partition's lines in the decoded block (how much folding each has to do).
    var linesByPartition: [Int] {
        (0..<partitioner.partitions).map { partition in chunks.reduce(0) { $0 + $1.byPartition[partition].count } }
    }

    /// The number of the block's last line, too-long lines included (0 for an empty block): every later
    /// line of the file has a greater one.
    var lastLineNumber: Int {
        max(batch.last?.number ?? 0, batch.linesTooLong.last?.lineNumber ?? 0)
    }

    /// The block's pieces, to be taken one at a time by the threads that decode them.
    func pieceQueue() -> PartitionQueue { PartitionQueue(weights: Array(repeating: 1, count: chunks.count)) }

    /// Decodes the pieces that `queue` (from `pieceQueue`) hands this thread, until it has none left.
    func decodePieces(from queue: PartitionQueue) {
        while let piece = queue.take() { decode(piece: piece) }
    }

    /// Decodes piece `piece`, a contiguous share of the lines, with the too-long lines that fall
    /// before its last line (the last piece also takes those after every line).
    func decode(piece: Int) {
        let count = batch.count, pieces = chunks.count
        let lower = count * piece / pieces, upper = count * (piece + 1) / pieces
        let first = lower == 0 ? Int.min : batch[lower - 1].number + 1
        let last = piece == pieces - 1 ? Int.max : (upper == 0 ? Int.min : batch[upper - 1].number + 1)
        chunks[piece].decode(batch, lines: lower..<upper, tooLongIn: first..<max(first, last), partitioner: partitioner)
    }
}
