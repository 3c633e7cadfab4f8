import Foundation

/// A streaming response's writer (Server-Sent Events): the producer appends, the event loop sends.
///
/// `write` returns at once while less than `bufferBytes` wait for the client; past that it waits for the client to
/// take them, at most `timeoutSeconds`, then fails, so a producer learns that its page is too slow and never waits
/// longer (LiveHub then drops that page's queue for a `reset`). It fails at once once the connection is gone.
final class StreamChannel: StreamWriter, @unchecked Sendable {
    // Safe: every field but the constants is only touched under `condition`.
    private let condition = NSCondition()
    private var chunks: [[UInt8]] = []
    private var queuedBytes = 0
    /// The loop closed the connection.
    private var closed = false
    /// A write waited `timeoutSeconds` in vain: every later write fails too.
    private var stalled = false
    private var finished = false
    private let bufferBytes: Int
    private let timeoutSeconds: Double
    /// Tells the event loop that bytes wait (or that the producer finished).
    private let notify: @Sendable () -> Void

    init(bufferBytes: Int, timeoutSeconds: Double, notify: @escaping @Sendable () -> Void) {
        self.bufferBytes = bufferBytes
        self.timeoutSeconds = timeoutSeconds
        self.notify = notify
    }

    func write(_ bytes: [UInt8]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, !stalled else { return false }
        chunks.append(bytes)
        queuedBytes += bytes.count
        notify()
        let deadline = Date(timeIntervalSinceNow: timeoutSeconds)
        while queuedBytes > bufferBytes, !closed {
            if !condition.wait(until: deadline) {
                stalled = true
                return false
            }
        }
        return !closed
    }

    /// The producer returned: the loop sends what is queued, then closes the connection.
    func finish() {
        condition.lock()
        finished = true
        if !closed { notify() }
        condition.unlock()
    }

    /// Event loop: everything queued, and whether the producer is done (or gave up on a slow client).
    func take() -> (bytes: [UInt8], finished: Bool) {
        condition.lock()
        defer { condition.unlock() }
        let bytes = chunks.count == 1 ? chunks[0] : Array(chunks.joined())
        chunks = []
        queuedBytes = 0
        condition.broadcast()
        return (bytes, finished || stalled || closed)
    }

    /// Event loop: the connection is gone; every write fails from now on.
    func close() {
        condition.lock()
        closed = true
        chunks = []
        queuedBytes = 0
        condition.broadcast()
        condition.unlock()
    }
}
