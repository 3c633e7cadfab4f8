import Foundation
@testable import Runtime
import Testing

/// The fold fork's partitions, taken by whichever worker is free.
@Suite struct PartitionQueueTests {
    @Test func handsOutEveryPartitionOnceHeaviestFirst() {
        let queue = PartitionQueue(weights: [5, 0, 9, 5, 1])
        var taken: [Int] = []
        while let index = queue.take() { taken.append(index) }
        #expect(taken == [2, 0, 3, 4, 1], "by weight, ties in partition order")
        #expect(queue.take() == nil)
    }

    /// Workers racing for partitions each get distinct ones, and together all of them.
    @Test func concurrentWorkersShareThePartitions() {
        let partitions = 1_000
        let queue = PartitionQueue(weights: (0..<partitions).map { $0 % 7 })
        let lock = NSLock()
        nonisolated(unsafe) var taken: [Int] = []
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            var mine: [Int] = []
            while let index = queue.take() { mine.append(index) }
            lock.lock()
            taken += mine
            lock.unlock()
        }
        #expect(taken.sorted() == Array(0..<partitions))
    }
}
