/// The outputs of the block being written, one batch per partition, in partition order.
final class WrittenOutputs: @unchecked Sendable {
    // Safe: the calling thread touches `batches` only between the writer's `SerialJobThread.wait` and `submit`, the
    // writer thread only in the job submitted after that.
    var batches: [OutputBatch]

    init(count: Int) {
        batches = (0..<count).map { _ in OutputBatch(newlineSeparated: true) }
    }
}
