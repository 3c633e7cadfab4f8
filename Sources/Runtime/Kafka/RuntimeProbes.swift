import Domain

/// What the simulation watches from inside an executor: the state each committed transaction left
/// in a partition's changelog, and the state each restore rebuilt. Nil closures cost nothing.
package struct RuntimeProbes {
    /// Called as soon as the broker committed a transaction (before the driver hears of it), with the
    /// state of each partition it covers (users encoded only with `RuntimeOptions.capturesCommittedState`).
    package var committed: (([PartitionState]) -> Void)?
    /// Called when partitions were restored, before any of their inputs is folded.
    package var restored: (([PartitionState]) -> Void)?

    package init(committed: (([PartitionState]) -> Void)? = nil, restored: (([PartitionState]) -> Void)? = nil) {
        self.committed = committed
        self.restored = restored
    }
}

/// A partition's state as its changelog holds it: the checkpoint, every user's timeline as the
/// changelog encodes it, and (committed) how many inputs the transaction folded.
package struct PartitionState: Equatable, Sendable {
    package var partition: Int32
    package var checkpoint: PartitionCheckpoint
    package var users: [String: [UInt8]]
    package var inputs: Int

    package init(partition: Int32, checkpoint: PartitionCheckpoint, users: [String: [UInt8]], inputs: Int) {
        self.partition = partition
        self.checkpoint = checkpoint
        self.users = users
        self.inputs = inputs
    }

    /// Every user of `fold`, as the changelog encodes them.
    static func users(of fold: PartitionFold?) -> [String: [UInt8]] {
        var users: [String: [UInt8]] = [:]
        fold?.forEachTimeline { users[$0.userId] = TimelineCodec.encode($0) }
        return users
    }
}
