import CRocksDB

/// A RocksDB database on local disk, the only code that sees RocksDB's C API.
///
/// Used for keyed state with history (what Kafka Streams and Flink keep in RocksDB): small values
/// under sorted binary keys, read by prefix scans. Writes go through a `RocksWriteBatch` that reads
/// see before it is written, so a caller can keep uncommitted changes out of the database until the
/// transaction that makes them durable elsewhere has committed. One thread at a time.
public final class RocksDatabase: @unchecked Sendable {
    // Unchecked: a handle used by one thread at a time, like every store.
    public let path: String
    private let handle: OpaquePointer
    private let options: OpaquePointer
    private let tableOptions: OpaquePointer
    private let readOptions: OpaquePointer
    private let writeOptions: OpaquePointer
    private var closed = false

    /// Memory a database may hold for its own use: its write buffers (one per owned partition, so
    /// small); the block cache is one for the process (`sharedCacheBytes`).
    public struct Tuning: Sendable {
        public var writeBufferBytes = 4 << 20
        public var writeBuffers: Int32 = 2
        public init() {}
    }

    /// The block cache every database of the process shares.
    public static let sharedCacheBytes = 32 << 20
    private static let sharedCache = SharedCache(bytes: sharedCacheBytes)

    /// Opens (creating if needed) the database in directory `path`.
    public init(path: String, tuning: Tuning = Tuning()) throws(RocksError) {
        self.path = path
        options = rocksdb_options_create()
        rocksdb_options_set_create_if_missing(options, 1)
        rocksdb_options_set_write_buffer_size(options, tuning.writeBufferBytes)
        rocksdb_options_set_max_write_buffer_number(options, tuning.writeBuffers)
        rocksdb_options_set_compression(options, Int32(rocksdb_lz4_compression))
        rocksdb_options_set_max_open_files(options, 256)
        rocksdb_options_set_keep_log_file_num(options, 2)
        rocksdb_options_set_info_log_level(options, 3)  // errors only: the LOG file stays small
        tableOptions = rocksdb_block_based_options_create()
        rocksdb_block_based_options_set_block_cache(tableOptions, Self.sharedCache.handle)
        rocksdb_block_based_options_set_block_size(tableOptions, 16 << 10)
        rocksdb_options_set_block_based_table_factory(options, tableOptions)
        readOptions = rocksdb_readoptions_create()
        writeOptions = rocksdb_writeoptions_create()
        var error: UnsafeMutablePointer<CChar>?
        let opened = rocksdb_open(options, path, &error)
        if let failure = RocksError(taking: error) {
            rocksdb_readoptions_destroy(readOptions)
            rocksdb_writeoptions_destroy(writeOptions)
            rocksdb_block_based_options_destroy(tableOptions)
            rocksdb_options_destroy(options)
            throw failure
        }
        handle = opened!
    }

    deinit { close() }

    public func close() {
        guard !closed else { return }
        closed = true
        rocksdb_close(handle)
        rocksdb_readoptions_destroy(readOptions)
        rocksdb_writeoptions_destroy(writeOptions)
        rocksdb_block_based_options_destroy(tableOptions)
        rocksdb_options_destroy(options)
    }

    /// Bytes the database holds in memory for itself: its write buffers (memtables).
    public var memoryInUse: Int { Int(property("rocksdb.cur-size-all-mem-tables") ?? "0") ?? 0 }

    /// Bytes in the process-wide block cache.
    public static var sharedCacheInUse: Int { Int(rocksdb_cache_get_usage(sharedCache.handle)) }

    /// Deletes the database in `path` (nothing if there is none).
    public static func destroy(path: String) throws(RocksError) {
        let options = rocksdb_options_create()
        defer { rocksdb_options_destroy(options) }
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_destroy_db(options, path, &error)
        if let failure = RocksError(taking: error) { throw failure }
    }

    /// Writes a batch atomically and clears it.
    public func write(_ batch: RocksWriteBatch) throws(RocksError) {
        guard batch.count > 0 else { return }
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_write_writebatch_wi(handle, writeOptions, batch.handle, &error)
        if let failure = RocksError(taking: error) { throw failure }
        batch.clear()
    }

    /// The value under `key`, seeing `overlay`'s writes over the database's; nil if there is none.
    public func get(_ key: [UInt8], overlay: RocksWriteBatch) throws(RocksError) -> [UInt8]? {
        var length = 0
        var error: UnsafeMutablePointer<CChar>?
        let value = key.withUnsafeBufferPointer { k in
            k.withMemoryRebound(to: CChar.self) {
                rocksdb_writebatch_wi_get_from_batch_and_db(overlay.handle, handle, readOptions, $0.baseAddress,
                                                            $0.count, &length, &error)
            }
        }
        if let failure = RocksError(taking: error) { throw failure }
        guard let value else { return nil }
        defer { rocksdb_free(value) }
        return Array(UnsafeRawBufferPointer(start: value, count: length))
    }

    /// Makes everything written so far survive a machine crash (the write-ahead log, synced).
    public func synchronize() throws(RocksError) {
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_flush_wal(handle, 1, &error)
        if let failure = RocksError(taking: error) { throw failure }
    }

    /// Flushes the write buffers and compacts everything (for measuring what is on disk).
    public func compactAll() throws(RocksError) {
        let flushOptions = rocksdb_flushoptions_create()
        defer { rocksdb_flushoptions_destroy(flushOptions) }
        rocksdb_flushoptions_set_wait(flushOptions, 1)
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_flush(handle, flushOptions, &error)
        if let failure = RocksError(taking: error) { throw failure }
        rocksdb_compact_range(handle, nil, 0, nil, 0)
    }

    /// A RocksDB property (e.g. "rocksdb.estimate-num-keys", "rocksdb.total-sst-files-size").
    public func property(_ name: String) -> String? {
        guard let value = rocksdb_property_value(handle, name) else { return nil }
        defer { rocksdb_free(value) }
        return String(cString: value)
    }

    /// Visits entries in key order from the last key at or before `seekBefore` (or from `from` when
    /// there is none in range) while keys are below `end`, seeing `overlay`'s writes over the
    /// database's. `body` returns false to stop.
    public func scan(from start: [UInt8], below end: [UInt8], backingUpTo seekBefore: [UInt8]? = nil,
                     overlay: RocksWriteBatch? = nil,
                     _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool) throws
    {
        var iterator = rocksdb_create_iterator(handle, readOptions)!
        if let overlay { iterator = rocksdb_writebatch_wi_create_iterator_with_base(overlay.handle, iterator) }
        defer { rocksdb_iter_destroy(iterator) }
        var positioned = false
        if let seekBefore {
            seekBefore.withUnsafeBufferPointer { key in
                key.withMemoryRebound(to: CChar.self) { rocksdb_iter_seek_for_prev(iterator, $0.baseAddress, $0.count) }
            }
            if rocksdb_iter_valid(iterator) != 0, Self.compare(Self.key(iterator), start) >= 0 { positioned = true }
        }
        if !positioned {
            start.withUnsafeBufferPointer { key in
                key.withMemoryRebound(to: CChar.self) { rocksdb_iter_seek(iterator, $0.baseAddress, $0.count) }
            }
        }
        while rocksdb_iter_valid(iterator) != 0 {
            let key = Self.key(iterator)
            guard Self.compare(key, end) < 0 else { break }
            var valueLength = 0
            let value = rocksdb_iter_value(iterator, &valueLength)
            guard try body(key, UnsafeRawBufferPointer(start: value, count: valueLength)) else { break }
            rocksdb_iter_next(iterator)
        }
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_iter_get_error(iterator, &error)
        if let failure = RocksError(taking: error) { throw failure }
    }

    private static func key(_ iterator: OpaquePointer) -> UnsafeRawBufferPointer {
        var length = 0
        let key = rocksdb_iter_key(iterator, &length)
        return UnsafeRawBufferPointer(start: key, count: length)
    }

    private static func compare(_ a: UnsafeRawBufferPointer, _ b: [UInt8]) -> Int {
        let common = min(a.count, b.count)
        for index in 0..<common where a[index] != b[index] { return a[index] < b[index] ? -1 : 1 }
        return a.count - b.count
    }
}

/// The process-wide block cache (lives as long as the process).
private final class SharedCache: @unchecked Sendable {
    // Unchecked: RocksDB's cache is thread-safe.
    let handle: OpaquePointer
    init(bytes: Int) { handle = rocksdb_cache_create_lru(bytes)! }
}

/// Writes in order, indexed so that scans with this batch as overlay see them before they reach the
/// database (RocksDB's WriteBatchWithIndex).
public final class RocksWriteBatch: @unchecked Sendable {
    let handle: OpaquePointer

    public init() { handle = rocksdb_writebatch_wi_create(0, 1)! }
    deinit { rocksdb_writebatch_wi_destroy(handle) }

    public var count: Int { Int(rocksdb_writebatch_wi_count(handle)) }

    public func put(_ key: [UInt8], _ value: [UInt8]) {
        key.withUnsafeBufferPointer { k in
            value.withUnsafeBufferPointer { v in
                k.withMemoryRebound(to: CChar.self) { k in
                    v.withMemoryRebound(to: CChar.self) { v in
                        rocksdb_writebatch_wi_put(handle, k.baseAddress, k.count, v.baseAddress, v.count)
                    }
                }
            }
        }
    }

    public func delete(_ key: [UInt8]) {
        key.withUnsafeBufferPointer { k in
            k.withMemoryRebound(to: CChar.self) { rocksdb_writebatch_wi_delete(handle, $0.baseAddress, $0.count) }
        }
    }

    public func clear() { rocksdb_writebatch_wi_clear(handle) }
}

/// An error RocksDB reported, with its message.
public struct RocksError: Error, CustomStringConvertible, Sendable {
    public var description: String

    init?(taking message: UnsafeMutablePointer<CChar>?) {
        guard let message else { return nil }
        description = "RocksDB: " + String(cString: message)
        rocksdb_free(message)
    }
}
