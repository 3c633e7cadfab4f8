import Foundation

/// Bytes the state directory holds on disk, split as an operator budgets them: the replay horizon's
/// history (each partition's RocksDB, `partition-N.history`) and the rest (the hot states' snapshots).
/// Measured by walking the directory when `/metrics` is scraped, on the metrics thread, off the fold's path.
public struct StateDiskUsage: Equatable, Sendable {
    public var historyBytes = 0
    public var snapshotBytes = 0

    public init(historyBytes: Int = 0, snapshotBytes: Int = 0) {
        self.historyBytes = historyBytes
        self.snapshotBytes = snapshotBytes
    }

    /// The sizes of the regular files under `directory` (zero for a directory not yet created).
    public static func measure(_ directory: String) -> StateDiskUsage {
        var usage = StateDiskUsage()
        let root = URL(fileURLWithPath: directory, isDirectory: true)
        // Files' sizes, not the blocks allocated to them: file systems preallocate ahead of writes
        // (XFS gives a 100 kB file 800 kB for a while), which would make the figure jump around.
        let keys: [URLResourceKey] = [.isRegularFileKey, .fileSizeKey]
        // Files vanish while we walk (RocksDB compactions, snapshot rotation): skip them, never fail.
        guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys,
                                                         errorHandler: { _, _ in true }) else { return usage }
        for case let file as URL in files {
            guard let values = try? file.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { continue }
            let bytes = values.fileSize ?? 0
            if file.pathComponents.contains(where: { $0.hasSuffix(".history") }) {
                usage.historyBytes += bytes
            } else {
                usage.snapshotBytes += bytes
            }
        }
        return usage
    }
}
