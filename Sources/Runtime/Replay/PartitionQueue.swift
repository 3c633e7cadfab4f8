import Synchronization

/// The partitions of one fork, handed out one at a time to whichever worker asks next (and, with
/// equal weights, the pieces of a block to decode: `ReplayBlock.pieceQueue`).
///
/// A worker whose partitions were light, or that the other threads of a busy machine did not
/// delay, takes the next partition instead of idling at the join while the other worker finishes a
/// fixed share. The heaviest partitions (by the block's lines) go first, so the last ones handed out
/// are small and the workers finish close together.
final class PartitionQueue: Sendable {
    private let order: [Int]
    private let next = Atomic<Int>(0)

    /// - Parameter weights: each partition's work, by partition index (e.g. its lines in the block).
    init(weights: [Int]) {
        order = weights.indices.sorted { (weights[$0], $1) > (weights[$1], $0) }
    }

    /// The index of the next partition to fold, or nil once every partition has been taken.
    func take() -> Int? {
        let position = next.add(1, ordering: .relaxed).oldValue
        return position < order.count ? order[position] : nil
    }
}
