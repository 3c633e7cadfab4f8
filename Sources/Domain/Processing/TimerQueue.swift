/// The partition's stream-time timers: at most one per user (its earliest), in an indexed min-heap
/// so that a user's timer can be moved or removed in place. Ties pop in slot order, which keeps
/// firing deterministic.
///
/// A timer moved later stays where it is in the heap, under its old time, until that time comes up
/// (`popDue`), and is sifted once then to its time of the moment: a user on a trip moves its timer
/// later on every fix (the signal-lost check follows the last fix), a sift down the heap each time.
/// A heap entry is never later than its user's timer, so the first entry whose time is its user's is
/// the earliest timer, and timers pop in the order the heap would give with every move made at once.
struct TimerQueue: Sendable {
    private var heap: [(due: UnixMillis, slot: Int32)] = []
    /// Heap position of each user's timer, -1 when the user has none.
    private var position: [Int32] = []
    /// Each user's timer as last set, `.max` when none; its heap entry may be earlier.
    private var dues: [UnixMillis] = []

    /// Timers in the heap: one per user whose timer is not `.max`.
    var scheduledCount: Int { heap.count }

    /// Makes room for a new user slot.
    mutating func addSlot() {
        position.append(-1)
        dues.append(.max)
    }

    /// The user's scheduled timer, `.max` when none.
    func due(of slot: Int32) -> UnixMillis { dues[Int(slot)] }

    /// Schedules, moves or (with `.max`) removes the user's timer.
    mutating func set(_ slot: Int32, due: UnixMillis) {
        let old = dues[Int(slot)]
        dues[Int(slot)] = due
        // A user has a heap entry exactly when its timer is not `.max`, never later than the timer:
        // a timer moved later needs no look at the heap.
        if old != .max, due != .max, due >= old { return }
        if old == .max {
            guard due != .max else { return }
            heap.append((due, slot))
            position[Int(slot)] = Int32(heap.count - 1)
            siftUp(heap.count - 1)
            return
        }
        let at = Int(position[Int(slot)])
        if due == .max {
            remove(at: at)
        } else if due < heap[at].due {
            heap[at].due = due
            siftUp(at)
        }
    }

    /// Removes and returns the earliest timer if it is due at or before `time`.
    mutating func popDue(upTo time: UnixMillis) -> (due: UnixMillis, slot: Int32)? {
        while let top = heap.first, top.due <= time {
            let due = dues[Int(top.slot)]
            if due == top.due {
                remove(at: 0)
                dues[Int(top.slot)] = .max
                return top
            }
            heap[0].due = due  // moved later since it was placed
            siftDown(0)
        }
        return nil
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
