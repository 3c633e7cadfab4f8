import CommandLineKit
import RuntimeSimulation

#if canImport(Glibc)
import Glibc
#endif

/// `tripstream-sim`: the runtime's state machine under seeded faults, one thread, simulated time.
let command = CommandSpec(
    name: "run",
    abstract: "Run seeds of the deterministic simulation and check its invariants.",
    discussion: """
        Each seed draws a fleet, 1-4 instances over an in-memory broker, the order they run in and the \
        faults they meet (broker errors, fencing, rebalances, expired sessions, crashes at any step, lost \
        local state, slow commits, clock jumps); then, faults stopped, every input must be committed, and \
        the committed outputs must equal the reference fold. The last line says `N seeds, F faults, V \
        violations`; each failing seed prints what broke and `tripstream-sim --seed S`, which replays it \
        step for step. Exit status: 0 without violations, 1 with.
        """,
    options: [
        .value("seeds", valueName: "count", help: "How many seeds to run, from --first on.", default: "100"),
        .value("first", valueName: "seed", help: "The first seed.", default: "1"),
        .value("seed", valueName: "seed", help: "Run this one seed only, and print its trace with --trace."),
        .flag("trace", help: "Print every step of the seeds run (with --seed)."),
        .flag("progress", help: "Print a line every 100 seeds on standard error."),
        .flag("stats", help: "Before the last line, print the faults by kind and the crashes by commit step."),
    ])
let program = CommandLineProgram(
    name: "tripstream-sim", abstract: "The deterministic simulation of TripStream's runtime.", commands: [command],
    defaultCommand: "run")
let parsed = program.parseOrExit()

let seeds: [UInt64]
let trace: Bool
do {
    trace = try parsed.bool("trace")
    if let one = parsed.values(of: "seed").last?.text {
        guard let seed = UInt64(one) else { throw CommandLineError(.badValue(option: "seed", text: one, expected: "a seed (0 or more)")) }
        seeds = [seed]
    } else {
        let count = try parsed.int("seeds", in: 0...100_000_000)
        let first = try parsed.int("first", in: 0...Int.max)
        seeds = (0..<count).map { UInt64(first + $0) }
    }
} catch {
    CommandLineProgram.exit(with: error)
}
let progress = (try? parsed.bool("progress")) ?? false
let stats = (try? parsed.bool("stats")) ?? false
var faultKinds: [String: Int] = [:]
var crashPoints: [String: Int] = [:]
var inputs = 0

var faults = 0
var violations = 0
for (index, seed) in seeds.enumerated() {
    let outcome = Simulator.run(seed: seed, trace: trace)
    faults += outcome.faults
    violations += outcome.violations.count
    inputs += outcome.inputs
    faultKinds.merge(outcome.faultKinds, uniquingKeysWith: +)
    crashPoints.merge(outcome.crashPoints, uniquingKeysWith: +)
    if trace { for line in outcome.trace { print(line) } }
    if !outcome.violations.isEmpty {
        for line in Simulator.report(outcome) { print(line) }
    }
    if progress, (index + 1) % 100 == 0 {
        ProcessEnvironment.writeToStandardError("\(index + 1) seeds, \(faults) faults, \(violations) violations so far\n")
    }
}
if stats {
    print("inputs published: \(inputs)")
    print("faults by kind: " + faultKinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    print("crashes before: " + crashPoints.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
}
print(Simulator.summary(seeds: seeds.count, faults: faults, violations: violations))
exit(violations == 0 ? 0 : 1)
