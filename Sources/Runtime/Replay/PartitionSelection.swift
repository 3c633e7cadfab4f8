/// The Kafka partitions a replay of history folds (`--partitions 0-5`, `3`, `0,2,4-6`), so a big replay splits
/// over processes or machines by Kafka's own partitioning.
public enum PartitionSelection {
    /// The partitions named by `text`, ascending, each once.
    /// - Throws: ``ReplayError`` naming the part that is not a partition or a range `low-high`.
    public static func parse(_ text: String) throws -> [Int32] {
        var selected = Set<Int32>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count), let low = Int32(bounds[0]), let high = Int32(bounds[bounds.count - 1]),
                low >= 0, low <= high
            else {
                throw ReplayError.badPartitionSelection(part: String(part), text: text)
            }
            guard high - low < 100_000 else { throw ReplayError.partitionRangeTooLarge(String(part)) }
            for partition in low...high { selected.insert(partition) }
        }
        return selected.sorted()
    }
}
