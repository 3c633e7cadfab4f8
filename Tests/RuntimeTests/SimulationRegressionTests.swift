import RuntimeSimulation
import Testing

/// Seeds of `tripstream-sim` that once broke an invariant, each run again: the bug it found stays fixed
/// (`tripstream-sim --seed S --trace` shows what happens step by step).
@Suite(.timeLimit(.minutes(5)))
struct SimulationRegressionTests {
    @Test(arguments: [
        (UInt64(29), "a revoked partition was resumed by its new owner while the old one still committed it"),
        (UInt64(13), "a zombie restored partitions behind its own open transaction"),
        (UInt64(49), "a zombie's local snapshot claimed changelog records other owners wrote"),
        (UInt64(82), "a static member's rejoin stalled a partition its dead predecessor never released"),
        (UInt64(164), "a restore read its changelog only as far as a transaction left open, behind what was committed"),
        (UInt64(160), "a zombie committed its work on lost partitions for a revocation seen in the same poll"),
    ])
    func aSeedThatOnceFailedHoldsEveryInvariant(seed: UInt64, bug: String) {
        let outcome = Simulator.run(seed: seed)
        #expect(outcome.violations.isEmpty, "seed \(seed) (\(bug)): \(outcome.violations)")
        #expect(outcome.faults > 0 && outcome.inputs > 0)
    }

    /// The checks can fail: told one input fewer than was published, they find the committed transactions
    /// folded one too many.
    @Test func theChecksCatchAnInputTheyWereNotToldOf() {
        let outcome = Simulator.run(seed: 7, sabotage: .forgetOneInput)
        #expect(outcome.violations.contains { $0.contains("committed transactions folded") }, "\(outcome.violations)")
    }

    @Test func aSeedRunsTheSameEveryTime() {
        let first = Simulator.run(seed: 11, trace: true), second = Simulator.run(seed: 11, trace: true)
        #expect(first.trace == second.trace)
        #expect(first.faults == second.faults && first.trace.count > 50)
    }
}
