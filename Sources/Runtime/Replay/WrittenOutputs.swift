/// The outputs on their way to the files: per partition, the batches taken from it after each block, oldest
/// first, until every piece of theirs is written. A piece is written once its section is complete
/// (`OutputSections`): the batches are never copied, and go back to their partition emptied.
final class WrittenOutputs: @unchecked Sendable {
    // Safe: the calling thread touches it only between the writer's `SerialJobThread.wait` and `submit`, the
    // writer thread only in the job submitted after that.
    struct Taken {
        var batch: OutputBatch
        var pieces: [OutputSections.Piece]
        /// Pieces written so far.
        var written = 0
    }

    private(set) var taken: [[Taken]]
    /// Emptied batches, per partition, to be filled again.
    private var spare: [[OutputBatch]]
    /// Sections before this one are complete: no line of theirs is left to fold.
    private var open = 0

    init(count: Int) {
        taken = Array(repeating: [], count: count)
        spare = Array(repeating: [], count: count)
    }

    /// Takes `output` of partition `index` (replaced by an empty batch) with its pieces; sections before
    /// `open` are complete.
    func take(_ output: inout OutputBatch, pieces: [OutputSections.Piece], of index: Int, completeBefore open: Int) {
        var batch = spare[index].popLast() ?? OutputBatch(newlineSeparated: true)
        swap(&batch, &output)
        taken[index].append(Taken(batch: batch, pieces: pieces))
        self.open = open
    }

    /// Hands each complete piece to `write` (batch, piece) in file order: section after section, each
    /// partition after partition, each partition's batches oldest first. Batches fully written are emptied.
    func writeComplete(_ write: (OutputBatch, OutputSections.Piece) throws -> Void) throws {
        var order: [(section: Int, partition: Int, batch: Int, piece: Int)] = []
        for (partition, batches) in taken.enumerated() {
            for (batch, entry) in batches.enumerated() {
                for piece in entry.pieces.indices.dropFirst(entry.written) where entry.pieces[piece].section < open {
                    order.append((entry.pieces[piece].section, partition, batch, piece))
                }
            }
        }
        order.sort { ($0.section, $0.partition, $0.batch, $0.piece) < ($1.section, $1.partition, $1.batch, $1.piece) }
        for entry in order {
            try write(taken[entry.partition][entry.batch].batch, taken[entry.partition][entry.batch].pieces[entry.piece])
            taken[entry.partition][entry.batch].written += 1
        }
        for partition in taken.indices {
            while let first = taken[partition].first, first.written == first.pieces.count {
                var batch = taken[partition].removeFirst().batch
                batch.removeAll()
                spare[partition].append(batch)
            }
        }
    }
}
