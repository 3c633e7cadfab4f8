@testable import Domain
import Testing

/// `ScratchBuffer` gives exactly the room asked for, on the stack or the heap, and every value
/// written there reads back.
@Suite struct ScratchBufferTests {
    @Test(arguments: [0, 1, 31, 128, 129, 1_000, 100_000])
    func holdsWhatIsWritten(count: Int) {
        // 8-byte values: 128 fit the stack's 1 KiB, 129 go to the heap.
        let sum = ScratchBuffer.with(UInt64.self, count: count) { scratch -> UInt64 in
            #expect(scratch.count == count)
            for index in scratch.indices { scratch.initializeElement(at: index, to: UInt64(index) &* 3) }
            return scratch.reduce(0, &+)
        }
        #expect(sum == UInt64(count) * UInt64(max(count - 1, 0)) / 2 * 3)
    }

    @Test func aWideValueLeavesTheStackSooner() {
        struct Wide { var a, b, c, d: Double }  // 32 bytes: 32 fit in 1 KiB
        for count in [32, 33] {
            let last = ScratchBuffer.with(Wide.self, count: count) { scratch -> Double in
                for index in scratch.indices {
                    scratch.initializeElement(at: index, to: Wide(a: 1, b: 2, c: 3, d: Double(index)))
                }
                return scratch[count - 1].d
            }
            #expect(last == Double(count - 1))
        }
    }
}
