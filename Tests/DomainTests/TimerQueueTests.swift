@testable import Domain
import Simulation
import Testing

/// `TimerQueue` against a plain model: each user's timer as last set, popped earliest first (ties in
/// slot order). The queue leaves timers moved later where they were in its heap until they come up;
/// the timers it pops, and their order, must be the model's.
@Suite struct TimerQueueTests {
    @Test(arguments: [1, 2, 3, 4, 5])
    func popsWhatTheLastSetsSayInOrder(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var queue = TimerQueue()
        var model: [UnixMillis] = []
        var now: UnixMillis = 0
        var popped = 0
        for step in 0..<20_000 {
            if step < 64 || random.next() % 200 == 0 {
                queue.addSlot()
                model.append(.max)
            }
            let slot = Int32(random.next() % UInt64(model.count))
            switch random.next() % 10 {
            case 0: // removed
                queue.set(slot, due: .max)
                model[Int(slot)] = .max
            case 1, 2: // moved earlier, maybe before others or to a tie
                let due = now + UnixMillis(random.next() % 50)
                queue.set(slot, due: due)
                model[Int(slot)] = due
            case 3 ... 7: // moved later, as a fix moves the signal-lost check
                let due = max(model[Int(slot)] == .max ? now : model[Int(slot)], now) + UnixMillis(random.next() % 400)
                queue.set(slot, due: due)
                model[Int(slot)] = due
            default: // stream time advances: everything due pops, earliest first
                now += UnixMillis(random.next() % 120)
                while let entry = queue.popDue(upTo: now) {
                    let expected = model.indices.filter { model[$0] <= now }
                        .min { (model[$0], $0) < (model[$1], $1) }
                    #expect(expected.map { Int32($0) } == entry.slot)
                    #expect(expected.map { model[$0] } == entry.due)
                    guard let expected else { return }
                    model[expected] = .max
                    popped += 1
                }
                #expect(!model.contains { $0 <= now })
            }
            #expect(queue.due(of: slot) == model[Int(slot)])
            #expect(queue.scheduledCount == model.filter { $0 != .max }.count)
        }
        #expect(popped > 1_000)
    }
}
