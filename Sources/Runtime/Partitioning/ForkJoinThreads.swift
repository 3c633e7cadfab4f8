import class Foundation.NSCondition
import class Foundation.Thread

/// A fixed set of plain threads that run one job together and return when all are done: fork,
/// join, repeat. The calling thread is worker 0, so `count` threads use `count` cores.
///
/// Plain threads rather than Swift concurrency: a job is CPU-bound folding that must not wait
/// behind, or block, the cooperative pool, and the join is a happens-before edge (the lock) that
/// lets the caller read what the workers wrote.
final class ForkJoinThreads: @unchecked Sendable {
    // Safe: `job`, `generation`, `running` and `stopping` are read and written only while holding
    // `condition`'s lock.
    private let condition = NSCondition()
    private var job: (@Sendable (Int) -> Void)?
    private var generation = 0
    private var running = 0
    private var stopping = false
    let count: Int

    init(count: Int) {
        precondition(count > 0)
        self.count = count
        for index in 1..<count {
            let thread = Thread { [self] in work(as: index) }
            thread.name = "tripstream-fold-\(index)"
            thread.start()
        }
    }

    /// Runs `body(0)` on the calling thread and `body(i)` on worker `i`, for every `i < count`, and
    /// returns when every call has returned.
    func run(_ body: @escaping @Sendable (Int) -> Void) {
        guard count > 1 else { return body(0) }
        condition.lock()
        job = body
        generation &+= 1
        running = count - 1
        condition.broadcast()
        condition.unlock()
        body(0)
        condition.lock()
        while running > 0 { condition.wait() }
        job = nil
        condition.unlock()
    }

    /// Ends the worker threads once they finish the current job. Call it once, when done.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func work(as index: Int) {
        var seen = 0
        while true {
            condition.lock()
            while generation == seen, !stopping { condition.wait() }
            if stopping {
                condition.unlock()
                return
            }
            seen = generation
            let body = job!
            condition.unlock()
            body(index)
            condition.lock()
            running -= 1
            if running == 0 { condition.broadcast() }
            condition.unlock()
        }
    }
}
