/// The outputs of the block being written, one batch per partition, in partition order, and the pieces of each
/// that belong to complete sections (`OutputSections`).
final class WrittenOutputs: @unchecked Sendable {
    // Safe: the calling thread touches `batches` only between the writer's `SerialJobThread.wait` and `submit`, the
    // writer thread only in the job submitted after that.
    var batches: [OutputBatch]
    var pieces: [[OutputSections.Piece]]

    init(count: Int) {
        batches = (0..<count).map { _ in OutputBatch(newlineSeparated: true) }
        pieces = Array(repeating: [], count: count)
    }
}
