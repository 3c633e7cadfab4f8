#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Runtime

/// History stores for tests: RocksDB in a fresh temporary directory.
///
/// The directories are made under one root per test process, removed when the process exits: a
/// store is often still open when its test returns (the fold holding it), so no test removes its own.
enum TestHistory {
    private static let root: String = {
        var template = Array((NSTemporaryDirectory() + "tripstream-test-history-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        atexit { try? FileManager.default.removeItem(atPath: TestHistory.root) }
        return String(cString: template)
    }()

    static func directory() -> String {
        var template = Array((root + "/XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        return String(cString: template)
    }

    static func store(recordsChanges: Bool = true) throws -> RocksHistoryStore {
        try RocksHistoryStore(directory: directory() + "/history", fresh: true, recordsChanges: recordsChanges)
    }
}
