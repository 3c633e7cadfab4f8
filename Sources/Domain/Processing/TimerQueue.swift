/// The partition's stream-time timers: at most one per user (its earliest), in an indexed min-heap
/// so that a user's timer can be moved or removed in place. Ties pop in slot order, which keeps
/// firing deterministic.
struct TimerQueue: Sendable {
    private var heap: [(due: UnixMillis, slot: Int32)] = []
    /// Heap position of each user's timer, -1 when the user has none.
    private var position: [Int32] = []

    var nextDue: UnixMillis? { heap.first?.due }

    /// Makes room for a new user slot.
    mutating func addSlot() { position.append(-1) }

    /// The user's scheduled timer, `.max` when none.
    func due(of slot: Int32) -> UnixMillis {
        let at = position[Int(slot)]
        return at < 0 ? .max : heap[Int(at)].due
    }

    /// Schedules, moves or (with `.max`) removes the user's timer.
    mutating func set(_ slot: Int32, due: UnixMillis) {
        let at = Int(position[Int(slot)])
        if at < 0 {
            guard due != .max else { return }
            heap.append((due, slot))
            position[Int(slot)] = Int32(heap.count - 1)
            siftUp(heap.count - 1)
        } else if due == .max {
            remove(at: at)
        } else {
            let old = heap[at].due
            heap[at].due = due
            if due < old { siftUp(at) } else { siftDown(at) }
        }
    }

    /// Removes and returns the earliest timer.
    mutating func pop() -> (due: UnixMillis, slot: Int32)? {
        guard let top = heap.first else { return nil }
        remove(at: 0)
        return top
    }

    private mutating func remove(at index: Int) {
        position[Int(heap[index].slot)] = -1
        let last = heap.removeLast()
        guard index < heap.count else { return }
        heap[index] = last
        position[Int(last.slot)] = Int32(index)
        siftDown(index)
        siftUp(index)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.less(heap[child], heap[parent]) else { break }
            swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, Self.less(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count, Self.less(heap[right], heap[smallest]) { smallest = right }
            if smallest == parent { return }
            swapAt(parent, smallest)
            parent = smallest
        }
    }

    private mutating func swapAt(_ i: Int, _ j: Int) {
        heap.swapAt(i, j)
        position[Int(heap[i].slot)] = Int32(i)
        position[Int(heap[j].slot)] = Int32(j)
    }

    private static func less(_ a: (due: UnixMillis, slot: Int32), _ b: (due: UnixMillis, slot: Int32)) -> Bool {
        (a.due, a.slot) < (b.due, b.slot)
    }
}
