extension ForkJoinThreads {
    /// Runs `body(i)` for every `i` in `0..<items`, item `i` on thread `i % count`, and returns when
    /// all ran: the owned partitions of a round, each folded by exactly one thread, as with Kafka
    /// Streams' `num.stream.threads`. A fork-join per round rather than a queue per thread: a round
    /// is one poll's worth of inputs, and a seal needs every partition's outputs anyway.
    func run(items: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 1, items > 1 else {
            for index in 0..<items { body(index) }
            return
        }
        let count = count
        run { worker in
            for item in stride(from: worker, to: items, by: count) { body(item) }
        }
    }
}
