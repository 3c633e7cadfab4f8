/// `tripstream-sim`'s engine: runs seeds and reports. Tests run a seed that once failed the same way.
package enum Simulator {
    /// Runs one seed; `trace` keeps every line of what happened (else the last few thousand). `sabotage`
    /// breaks the run on purpose, to show the checks can fail.
    package static func run(seed: UInt64, trace: Bool = false, sabotage: Sabotage? = nil) -> SimulationOutcome {
        SimulationRun(seed: seed, keepsTrace: trace, sabotage: sabotage).run()
    }

    /// Ways to break a run on purpose (tests of the checks).
    package enum Sabotage: Sendable {
        /// The checks are told of one input fewer than was published.
        case forgetOneInput
    }

    /// The report's last line.
    package static func summary(seeds: Int, faults: Int, violations: Int) -> String {
        "\(seeds) seeds, \(faults) faults, \(violations) violations"
    }

    /// How a failing seed is reported: what broke, the last lines of its trace, and the one line that
    /// reproduces it.
    package static func report(_ outcome: SimulationOutcome, traceLines: Int = 40) -> [String] {
        var lines = ["seed \(outcome.seed): \(outcome.violations.count) violations"]
        lines += outcome.violations.map { "  \($0)" }
        lines += outcome.trace.suffix(traceLines).map { "  | \($0)" }
        lines.append("reproduce: tripstream-sim --seed \(outcome.seed)")
        return lines
    }
}
