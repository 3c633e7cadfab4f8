import class Foundation.NSCondition
import class Foundation.Thread

/// One thread that runs jobs one at a time, in submission order, beside the calling thread. While a
/// replay folds a block, threads of this kind write the previous block's outputs and read the next
/// block's fixes, instead of leaving the fold threads idle; the service writes snapshots on one.
///
/// At most one job is in flight: `submit` waits for the previous one, so what a job touches is never
/// touched by both threads at once as long as the caller leaves it alone until the next `wait`.
final class SerialJobThread: @unchecked Sendable {
    // Safe: `job`, `busy`, `failure` and `stopping` are read and written only while holding
    // `condition`'s lock; what a job captures is touched by the calling thread only before
    // `submit` and after the `wait` that follows it (the lock orders the two).
    private let condition = NSCondition()
    private var job: (() throws -> Void)?
    private var busy = false
    private var failure: (any Error)?
    private var stopping = false

    init(name: String) {
        let thread = Thread { [self] in work() }
        thread.name = name
        thread.start()
    }

    /// Waits for the job in flight, then hands `body` to the thread.
    /// - Throws: the error of an earlier job, in which case `body` is not run.
    func submit(_ body: @escaping () throws -> Void) throws {
        try wait()
        condition.lock()
        job = body
        busy = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether a job is in flight.
    var isBusy: Bool {
        condition.lock()
        defer { condition.unlock() }
        return busy
    }

    /// Waits until no job is in flight.
    /// - Throws: the first error a job threw.
    func wait() throws {
        condition.lock()
        while busy { condition.wait() }
        let failure = self.failure
        condition.unlock()
        if let failure { throw failure }
    }

    /// Ends the thread once the job in flight is done. Call it once, when done.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while job == nil, !stopping { condition.wait() }
            guard let body = job else {
                condition.unlock()
                return
            }
            job = nil
            let failed = failure != nil
            condition.unlock()
            var error: (any Error)?
            if !failed {
                do { try body() } catch let thrown { error = thrown }
            }
            condition.lock()
            if failure == nil { failure = error }
            busy = false
            condition.broadcast()
            condition.unlock()
        }
    }
}
