/// A min-heap of (due time, user slot): the next stream-time timers of a partition.
///
/// Entries are not removed when a user's timer changes; a popped entry is checked against the
/// user's current next timer instead (lazy deletion keeps scheduling O(log n)).
struct TimerQueue: Sendable {
    private var heap: [(due: UnixMillis, slot: Int32)] = []

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }
    var nextDue: UnixMillis? { heap.first?.due }

    mutating func push(due: UnixMillis, slot: Int32) {
        heap.append((due, slot))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            if Self.less(heap[child], heap[parent]) {
                heap.swapAt(child, parent)
                child = parent
            } else { break }
        }
    }

    mutating func pop() -> (due: UnixMillis, slot: Int32)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, Self.less(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count, Self.less(heap[right], heap[smallest]) { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }

    private static func less(_ a: (due: UnixMillis, slot: Int32), _ b: (due: UnixMillis, slot: Int32)) -> Bool {
        (a.due, a.slot) < (b.due, b.slot)
    }
}
