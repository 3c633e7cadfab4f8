/// Results of a fork-join round, one slot per item, each written by the one thread its item ran on.
final class RoundResults<Value>: @unchecked Sendable {
    // Unchecked: slots are disjoint per item, and `take` runs after the round joined.
    private var slots: [Value?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func store(_ value: Value, at index: Int) {
        slots.withUnsafeMutableBufferPointer { $0[index] = value }
    }

    /// The values, once every item stored one.
    func take() -> [Value] { slots.map { $0! } }
}

/// Lends a value to the threads of one fork-join round.
struct RoundLoan<Value>: @unchecked Sendable {
    // Unchecked: the round only reads through it, and the caller changes nothing until it joined.
    let value: Value
}
