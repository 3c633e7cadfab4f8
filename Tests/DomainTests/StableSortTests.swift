import Domain
import Testing

/// `stablySorted(by:)` orders by the given order and keeps equal elements in their order.
@Suite struct StableSortTests {
    @Test func equalElementsKeepTheirOrder() {
        let pairs = [(3, "a"), (1, "b"), (3, "c"), (2, "d"), (1, "e"), (3, "f")]
        let sorted = pairs.stablySorted { $0.0 < $1.0 }
        #expect(sorted.map(\.1) == ["b", "e", "d", "a", "c", "f"])
    }

    @Test func aLongListMatchesTheStandardSortOfItsPositions() {
        var random = SystemRandomNumberGenerator()
        let keys = (0..<5_000).map { _ in Int.random(in: 0..<50, using: &random) }
        let tagged = Array(keys.enumerated())
        let sorted = tagged.stablySorted { $0.element < $1.element }
        let expected = tagged.sorted { ($0.element, $0.offset) < ($1.element, $1.offset) }.map(\.offset)
        let misplaced = zip(sorted.map(\.offset), expected).filter { $0 != $1 }.count
        #expect(sorted.count == expected.count)
        #expect(misplaced == 0)
    }

    @Test func emptyAndSingleListsComeBackAsTheyAre() {
        #expect([Int]().stablySorted(by: <) == [])
        #expect([7].stablySorted(by: <) == [7])
    }
}
