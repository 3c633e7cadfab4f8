import Foundation

/// The threads that run handlers, so the event loop never waits for one. With two threads or more, one runs only
/// priority jobs: a handler that blocks (a playback reading Kafka) can hold every other thread, never that one.
final class WorkerPool: @unchecked Sendable {
    // Safe: the queues and `stopped` are only touched under `condition`.
    typealias Job = @Sendable () -> Void
    private let condition = NSCondition()
    private var priorityJobs: [Job] = []
    private var otherJobs: [Job] = []
    private var stopped = false

    init(threads: Int, name: String) {
        for index in 0..<max(1, threads) {
            let reserved = threads > 1 && index == 0
            let thread = Thread { [self] in work(priorityOnly: reserved) }
            thread.name = "\(name)-\(index)"
            thread.stackSize = 512 << 10
            thread.start()
        }
    }

    func submit(priority: Bool, _ job: @escaping Job) {
        condition.lock()
        if priority { priorityJobs.append(job) } else { otherJobs.append(job) }
        condition.broadcast()
        condition.unlock()
    }

    /// The threads end after the job they are running; queued jobs are dropped.
    func stop() {
        condition.lock()
        stopped = true
        priorityJobs = []
        otherJobs = []
        condition.broadcast()
        condition.unlock()
    }

    private func work(priorityOnly: Bool) {
        while let job = next(priorityOnly: priorityOnly) { job() }
    }

    private func next(priorityOnly: Bool) -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            if !priorityJobs.isEmpty { return priorityJobs.removeFirst() }
            if !priorityOnly, !otherJobs.isEmpty { return otherJobs.removeFirst() }
            condition.wait()
        }
        return nil
    }
}
