import Foundation
import Runtime
import Testing

/// When the open transaction is sealed: a runtime caught up with its inputs does not hold them for
/// the whole commit interval while the committer has nothing to do.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct SealTimingTests {
    @Test func aCaughtUpRuntimeCommitsAfterAQuarterOfTheIntervalNotAtItsEnd() throws {
        let harness = try FakeBrokerHarness(users: 10, minutes: 5)
        // Sealed only at the interval, nothing would be committed before 20 s; caught up, a quarter
        // of it (5 s) is enough.
        let running = harness.start(instance: "a") { $0.commitInterval = 20_000 }
        defer { #expect(running.halt()) }
        #expect(harness.waitUntilCommitted([running], timeout: 15),
                "\(running.metrics.snapshot.inputsCommitted) of \(harness.inputCount) inputs committed after 15 s")
        #expect(running.failure == nil)
    }
}
