import Dispatch
import RocksDBIO

import class Foundation.Thread

/// A file replay's per-partition history stores, opened and removed side by side, a thread each.
///
/// Opening or removing a store mostly waits on fsync (about 10 ms each here): one after the other,
/// twelve of them kept a replay ~0.13 s from its first fix and ~0.1 s from its end, with the fold
/// threads idle.
enum HistoryStoresSideBySide {
    /// Fresh stores `directory/partition-0` … `partition-(count-1)`. If one cannot be opened, the others
    /// are removed again and its error is thrown.
    static func open(_ count: Int, in directory: String) throws -> [RocksHistoryStore] {
        let opened = RoundResults<Result<RocksHistoryStore, any Error>>(count: count)
        run(count) { index in
            opened.store(Result {
                try RocksHistoryStore(directory: directory + "/partition-\(index)", fresh: true, recordsChanges: false)
            }, at: index)
        }
        let results = opened.take()
        if let failure = results.first(where: { if case .failure = $0 { true } else { false } }) {
            remove(results.compactMap { try? $0.get() })
            _ = try failure.get()
        }
        return results.map { try! $0.get() }
    }

    /// Closes `stores` and deletes their files.
    static func remove(_ stores: [RocksHistoryStore]) {
        run(stores.count) { index in
            stores[index].close()
            try? RocksDatabase.destroy(path: stores[index].database.path)
        }
    }

    /// Runs `body(i)` for every `i < count`, each on a thread of its own; returns when all have returned.
    private static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                body(index)
                group.leave()
            }.start()
        }
        group.wait()
    }
}
