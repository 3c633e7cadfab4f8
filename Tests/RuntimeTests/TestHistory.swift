#if canImport(Glibc)
import Glibc
#endif
import Runtime

/// History stores for tests: RocksDB in a fresh temporary directory.
enum TestHistory {
    static func directory() -> String {
        var template = Array("/tmp/tripstream-history-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        return String(cString: template)
    }

    static func store(recordsChanges: Bool = true) throws -> RocksHistoryStore {
        try RocksHistoryStore(directory: directory() + "/history", fresh: true, recordsChanges: recordsChanges)
    }
}
