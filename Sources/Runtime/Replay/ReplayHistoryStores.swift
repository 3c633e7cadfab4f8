import RocksDBIO

/// A file replay's history stores, one per partition, all in one RocksDB database.
///
/// A user's history belongs to one partition, so the partitions' keys never meet and one database
/// holds them all. A database per partition, as the service keeps, took twelve opens and twelve
/// removals per replay: about 0.1 s of both cores at each end of a replay, most of a small one.
final class ReplayHistoryStores {
    let database: RocksDatabase
    /// One per partition, in partition order.
    let stores: [RocksHistoryStore]

    /// Write buffer per partition: the database's memtable is as large as the partitions' own were.
    static let writeBufferBytesPerPartition = 4 << 20

    /// A fresh database at `path` (what it held is deleted first) with `partitions` stores.
    init(partitions: Int, at path: String) throws {
        try RocksDatabase.destroy(path: path)
        var tuning = RocksDatabase.Tuning()
        tuning.writeBufferBytes = min(max(partitions, 1), 16) * Self.writeBufferBytesPerPartition
        let database = try RocksDatabase(path: path, tuning: tuning)
        self.database = database
        stores = (0..<partitions).map { _ in RocksHistoryStore(sharing: database, recordsChanges: false) }
    }

    /// Closes the database and deletes its files.
    func remove() {
        database.close()
        try? RocksDatabase.destroy(path: database.path)
    }
}
