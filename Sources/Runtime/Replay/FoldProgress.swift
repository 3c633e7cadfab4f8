import class Foundation.NSLock

/// Records folded so far by a replay's threads, reported as a fraction of the expected total.
final class FoldProgress: @unchecked Sendable {
    // Safe: `done` is read and written, and `report` called, only while holding `lock`.
    private let lock = NSLock()
    private var done: Int64 = 0
    private let total: Int64
    private let report: (Double) -> Void

    init(total: Int64, report: @escaping (Double) -> Void) {
        self.total = total
        self.report = report
    }

    /// Counts `records` more folded and reports the fraction (one report at a time, from whichever thread).
    func add(_ records: Int64) {
        guard records > 0, total > 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        done += records
        report(Double(done) / Double(total))
    }
}
