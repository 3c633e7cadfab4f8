import Domain
import Synchronization

/// Writes partition snapshots on a thread of its own, from images of partitions' folds taken at a
/// seal (`PartitionFold` is a value: the image shares its storage with the live fold until the fold
/// changes it, then each keeps its own): the partition folds on while its snapshot is encoded and
/// written, and no fold round waits for it.
///
/// One job at a time, as the rotation asks for one partition at a time (the thread is a
/// `SerialJobThread`: one job in flight, run in submission order); the driver collects the results.
/// Without a thread (the simulation), `submit` writes at once on the caller's thread.
final class SnapshotWriter: Sendable {
    struct Job: Sendable {
        let partition: Int32
        let image: PartitionFold
        let checkpoint: PartitionCheckpoint
        /// The changelog's end once the transaction sealed with the image committed: what the image covers.
        let changelogEnd: Int64
        let directory: String
    }

    struct Result: Sendable {
        let partition: Int32
        /// Seconds it took, or why it failed.
        let outcome: Swift.Result<Double, RuntimeError>
    }

    private let thread: SerialJobThread?
    private let results = Mutex<[Result]>([])
    private let monotonic: @Sendable () -> Double

    init(monotonic: @escaping @Sendable () -> Double, threaded: Bool = true) {
        self.monotonic = monotonic
        thread = threaded ? SerialJobThread(name: "tripstream-snapshot-writer") : nil
    }

    /// Whether a snapshot is being written.
    var isBusy: Bool { thread?.isBusy ?? false }

    /// Writes `job` once the snapshot in progress (if any) is written.
    func submit(_ job: Job) {
        let write = { [self] in
            let result = Self.write(job, monotonic: monotonic)
            results.withLock { $0.append(result) }
        }
        guard let thread else { return write() }
        // The jobs never throw (a failure is a result), so neither does the thread.
        try? thread.submit(write)
    }

    /// Waits until the snapshot in progress (if any) is written: before snapshots are written elsewhere.
    func waitUntilIdle() { try? thread?.wait() }

    func takeResults() -> [Result] {
        results.withLock { results in
            defer { results.removeAll() }
            return results
        }
    }

    /// Writes the snapshot in progress, then ends the thread.
    func stop() {
        waitUntilIdle()
        thread?.stop()
    }

    /// Encodes and writes one snapshot, on the calling thread (also hand-over's and shutdown's, which
    /// write every partition at once on the fold threads).
    static func write(_ job: Job, monotonic: () -> Double) -> Result {
        let started = monotonic()
        do {
            let bytes = PartitionSnapshot.encoded(partition: job.partition, changelogOffset: job.changelogEnd,
                                                  checkpoint: job.checkpoint, fold: job.image)
            try PartitionSnapshot.write(bytes, directory: job.directory, partition: job.partition)
            return Result(partition: job.partition, outcome: .success(monotonic() - started))
        } catch {
            return Result(partition: job.partition, outcome: .failure(RuntimeError.snapshotFailed(reason: "\(error)")))
        }
    }
}
