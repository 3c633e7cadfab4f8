@testable import Domain
import Simulation
import Testing

/// `GridWords`, a grid cell's packed words in a buffer that owns its memory: it grows in place, a copy
/// keeps its words (and their address, which a cell's lookup reads) while the other changes, and many
/// of them, copied as a table's cells are, stay apart. Checked against `[UInt64]` doing the same.
@Suite(.timeLimit(.minutes(5))) struct GridWordsTests {
    static func contents(_ words: GridWords) -> [UInt64] { words.withUnsafeBufferPointer { Array($0) } }

    /// What an address reads: the words the value held when the address was taken.
    static func read(_ address: UnsafePointer<UInt64>?, count: Int) -> [UInt64] {
        guard let address else { return [] }
        return Array(UnsafeBufferPointer(start: address, count: count))
    }

    @Test func insertsWithinItsCapacityKeepTheBufferAndItsAddress() {
        var words = GridWords([1, 2, 3])
        words.reserveCapacity(100)
        let address = words.address
        #expect(words.capacity >= 100)
        words.insert(contentsOf: [10, 11], at: 1)
        words.insert(contentsOf: [20], at: 0)
        words.insert(contentsOf: [30, 31, 32], at: words.count)
        words.removeSubrange(2..<4)
        words[0] = 21
        words.replace(at: 1, with: [40, 41])
        #expect(Self.contents(words) == [21, 40, 41, 3, 30, 31, 32])
        #expect(words.address == address, "changed in place, not moved")
        #expect(Self.read(address, count: words.count) == [21, 40, 41, 3, 30, 31, 32])
    }

    @Test func aFullBufferGrowsKeepingEveryWord() {
        var words = GridWords()
        #expect(words.address == nil && words.isEmpty)
        var expected: [UInt64] = []
        var moves = 0
        for value in 0..<5_000 as Range<UInt64> {
            let before = words.address, capacity = words.capacity
            // Alternately at the front, the middle and the end: every word after the place moves up.
            let place = [0, expected.count / 2, expected.count][Int(value % 3)]
            words.insert(contentsOf: [value, ~value], at: place)
            expected.insert(contentsOf: [value, ~value], at: place)
            if words.address != before { moves += 1 } else { #expect(words.capacity == capacity) }
            #expect(words.count == expected.count)
        }
        #expect(Self.contents(words) == expected)
        // Exact while small, doubling beyond: a few dozen moves for 10,000 words, not one per insert.
        #expect(moves < 60, "moved \(moves) times")
        #expect(words.capacity < 2 * words.count + 64)
    }

    @Test func aCopyKeepsItsWordsAndAddressWhileTheOtherChanges() {
        var words = GridWords((0..<40).map { UInt64($0) })
        words.reserveCapacity(200)
        let copy = words
        #expect(copy.address == words.address, "a copy shares the buffer until a change")
        let shared = copy.address
        words.insert(contentsOf: [99], at: 3)  // room enough: still copied, once, since the buffer is shared
        #expect(words.address != shared)
        #expect(copy.address == shared)
        #expect(Self.read(shared, count: copy.count) == (0..<40).map { UInt64($0) })
        let own = words.address
        words.removeSubrange(0..<10)
        words[0] = 7
        #expect(words.address == own, "now unique: changed in place")
        #expect(Self.contents(copy) == (0..<40).map { UInt64($0) })
        var expected = (0..<40).map { UInt64($0) }
        expected.insert(99, at: 3)
        expected.removeSubrange(0..<10)
        expected[0] = 7
        #expect(Self.contents(words) == expected)
        var emptied = copy
        emptied.removeAll()
        #expect(emptied.address == nil && emptied.count == 0)
        #expect(Self.contents(copy).count == 40)
    }

    /// Thousands of values in an array, as `SpatialGrid`'s cells: the array copied (a table copied)
    /// between rounds of random changes; every copy keeps the words it had, every value its own.
    @Test func manyCellsCopiedAndChangedStayApart() {
        var random = SeededRandom(seed: 42)
        let cells = 3_000
        var words = [GridWords](repeating: GridWords(), count: cells)
        var expected = [[UInt64]](repeating: [], count: cells)
        var snapshots: [(words: [GridWords], expected: [[UInt64]])] = []
        for round in 0..<6 {
            for _ in 0..<20_000 {
                let cell = Int.random(in: 0..<cells, using: &random)
                let count = expected[cell].count
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<6:
                    let place = Int.random(in: 0...count, using: &random)
                    let added = (0..<Int.random(in: 1...6, using: &random)).map { _ in UInt64.random(in: 0...UInt64.max, using: &random) }
                    words[cell].insert(contentsOf: added, at: place)
                    expected[cell].insert(contentsOf: added, at: place)
                case 6..<8 where count > 0:
                    let start = Int.random(in: 0..<count, using: &random)
                    let end = Int.random(in: start...min(count, start + 6), using: &random)
                    words[cell].removeSubrange(start..<end)
                    expected[cell].removeSubrange(start..<end)
                case 8 where count > 0:
                    let index = Int.random(in: 0..<count, using: &random)
                    words[cell][index] = UInt64(round)
                    expected[cell][index] = UInt64(round)
                case 9 where count > 20:
                    words[cell].removeAll()
                    expected[cell].removeAll()
                default:
                    break
                }
            }
            snapshots.append((words, expected))
        }
        for (index, snapshot) in snapshots.enumerated() {
            for cell in 0..<cells {
                #expect(snapshot.words[cell].count == snapshot.expected[cell].count, "round \(index), cell \(cell)")
                let address = snapshot.words[cell].address
                #expect(Self.read(address, count: snapshot.words[cell].count) == snapshot.expected[cell],
                        "round \(index), cell \(cell)")
            }
        }
        #expect(expected.reduce(0) { $0 + $1.count } > 50_000, "the cells hold words")
    }
}
