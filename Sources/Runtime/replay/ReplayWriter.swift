import class Foundation.NSCondition
import class Foundation.Thread

/// One thread that writes a replay's outputs while the next block is folded: the write of block N
/// (mostly the kernel copying into the page cache) overlaps the fold of block N+1 instead of
/// leaving the fold threads idle.
///
/// At most one write is in flight: `submit` waits for the previous one, so the outputs are written
/// in submission order and a block's buffers are never touched by both threads at once.
final class ReplayWriter: @unchecked Sendable {
    // Safe: `job`, `busy`, `failure` and `stopping` are read and written only while holding
    // `condition`'s lock; what a job captures is touched by the calling thread only before
    // `submit` and after the `wait` that follows it (the lock orders the two).
    private let condition = NSCondition()
    private var job: (() throws -> Void)?
    private var busy = false
    private var failure: (any Error)?
    private var stopping = false

    init() {
        let thread = Thread { [self] in work() }
        thread.name = "tripstream-replay-writer"
        thread.start()
    }

    /// Waits for the write in flight, then hands `body` to the writer thread.
    /// - Throws: the error of an earlier write, in which case `body` is not run.
    func submit(_ body: @escaping () throws -> Void) throws {
        try wait()
        condition.lock()
        job = body
        busy = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether a write is in flight.
    var isBusy: Bool {
        condition.lock()
        defer { condition.unlock() }
        return busy
    }

    /// Waits until no write is in flight.
    /// - Throws: the first error a write threw.
    func wait() throws {
        condition.lock()
        while busy { condition.wait() }
        let failure = self.failure
        condition.unlock()
        if let failure { throw failure }
    }

    /// Ends the thread once the write in flight is done. Call it once, when done.
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
