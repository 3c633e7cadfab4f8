import Foundation

/// The threads that fold owned partitions: each round, partition i of the sorted owned list goes to
/// thread i mod `count` (the caller's thread is thread 0), so a partition is folded by exactly one
/// thread at a time and its state needs no lock, as with Kafka Streams' `num.stream.threads`.
///
/// A fork-join per round rather than a queue per thread: a round is one poll's worth of inputs,
/// and the driver needs every partition's outputs before it can seal a transaction anyway.
final class FoldThreads: @unchecked Sendable {
    // Unchecked: the round's state is guarded by `condition`; the work items a round hands out are
    // disjoint (each partition to one thread).
    let count: Int
    private let condition = NSCondition()
    private var work: (@Sendable (Int) -> Void)?
    private var items = 0
    private var round: UInt64 = 0
    private var running = 0
    private var stopping = false

    /// - Parameter count: threads folding, the caller's included (at least 1).
    init(count: Int) {
        self.count = max(1, count)
        for index in 1..<self.count {
            let thread = Thread { [self] in serve(index) }
            thread.name = "tripstream-fold-\(index)"
            thread.start()
        }
    }

    /// Runs `body(i)` for every `i` in `0..<items`, item `i` on thread `i % count`; returns when all ran.
    func run(items: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 1, items > 1 else {
            for index in 0..<items { body(index) }
            return
        }
        condition.lock()
        work = body
        self.items = items
        running = count - 1
        round += 1
        condition.broadcast()
        condition.unlock()
        for index in stride(from: 0, to: items, by: count) { body(index) }
        condition.lock()
        while running > 0 { condition.wait() }
        work = nil
        condition.unlock()
    }

    /// Ends the threads (call once, with no round running).
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func serve(_ index: Int) {
        var seen: UInt64 = 0
        while true {
            condition.lock()
            while round == seen, !stopping { condition.wait() }
            if stopping {
                condition.unlock()
                return
            }
            seen = round
            let body = work!
            let items = self.items
            condition.unlock()
            for item in stride(from: index, to: items, by: count) { body(item) }
            condition.lock()
            running -= 1
            if running == 0 { condition.broadcast() }
            condition.unlock()
        }
    }
}

/// Results of a round, one slot per item, each written by the one thread its item ran on.
final class SealedSlots: @unchecked Sendable {
    // Unchecked: slots are disjoint per item, and `take` runs after the round joined.
    private var slots: [PartitionBatch?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func store(_ batch: PartitionBatch, at index: Int) {
        slots.withUnsafeMutableBufferPointer { $0[index] = batch }
    }

    func take() -> [PartitionBatch] { slots.map { $0! } }
}
