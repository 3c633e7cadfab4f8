import class Foundation.NSLock

#if canImport(Glibc)
import Glibc
#endif

/// The Kafka partitions of a replay of history folded on several threads (`--threads`): each partition on one
/// thread, read by a reader of that thread's own, into an ``OutputSpool`` on disk. A partition's spool goes to the
/// sink as soon as every partition before it has gone, so the sink gets the outputs partition after partition in
/// ascending order, as one thread writes them, and only partitions finished ahead of their turn wait on disk.
final class SpooledPartitionFolds: @unchecked Sendable {
    // Safe: `next`, `finished`, `written`, `totals`, `failure` and `sink` are touched only while holding `lock`;
    // `sources[w]` only by worker `w`; the rest is immutable.
    private let lock = NSLock()
    private let partitions: [Int32]
    private let sources: [any ReplayRecordSource]
    private let fold: HistoryPartitionFold
    private let sink: any ReplayOutputSink
    private var next = 0
    private var finished: Set<Int> = []
    private var written = 0
    private var totals: [HistoryPartitionFold.Totals?]
    private var failure: (any Error)?

    private init(partitions: [Int32], sources: [any ReplayRecordSource], fold: HistoryPartitionFold,
                 sink: any ReplayOutputSink)
    {
        self.partitions = partitions
        self.sources = sources
        self.fold = fold
        self.sink = sink
        totals = Array(repeating: nil, count: partitions.count)
    }

    /// Folds `partitions` on `threads` threads (`source` and copies of it) and writes their outputs to `sink` in
    /// order; returns each partition's totals, in the same order.
    static func run(_ partitions: [Int32], threads: Int, source: any ReplayRecordSource, fold: HistoryPartitionFold,
                    sink: any ReplayOutputSink) throws -> [HistoryPartitionFold.Totals]
    {
        let sources = [source] + (try (1..<threads).map { _ in try source.copyForAnotherThread() })
        let folds = SpooledPartitionFolds(partitions: partitions, sources: sources, fold: fold, sink: sink)
        defer {
            for partition in partitions { unlink(folds.spoolPath(partition)) }
        }
        let pool = ForkJoinThreads(count: threads)
        defer { pool.stop() }
        pool.run { worker in folds.work(as: worker) }
        if let failure = folds.failure { throw failure }
        return folds.totals.map { $0! }
    }

    private func spoolPath(_ partition: Int32) -> String { fold.historyDirectory + "/partition-\(partition).outputs" }

    /// Takes partitions in ascending order until none is left or one failed.
    private func work(as worker: Int) {
        while let index = take() {
            do {
                let spool = try OutputSpool(path: spoolPath(partitions[index]))
                let partitionTotals = try fold.fold(partitions[index], from: sources[worker], write: spool.write)
                try spool.close()
                try finish(index, partitionTotals)
            } catch {
                lock.lock()
                failure = failure ?? error
                lock.unlock()
            }
        }
    }

    private func take() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard failure == nil, next < partitions.count else { return nil }
        next += 1
        return next - 1
    }

    /// Records a partition as folded and hands the sink every spool whose turn has come.
    private func finish(_ index: Int, _ partitionTotals: HistoryPartitionFold.Totals) throws {
        lock.lock()
        defer { lock.unlock() }
        totals[index] = partitionTotals
        finished.insert(index)
        while finished.contains(written) {
            try OutputSpool.drain(spoolPath(partitions[written]), into: sink.write)
            written += 1
        }
    }
}
