import Testing

@testable import HTTPServing

/// Which connection gives way at the connection limit, and when each phase times out.
@Suite struct SlowClientPolicyTests {
    let policy: SlowClientPolicy = {
        var limits = ServerLimits()
        limits.headDeadlineSeconds = 10
        limits.idleTimeoutSeconds = 15
        limits.writeTimeoutSeconds = 5
        return SlowClientPolicy(limits: limits)
    }()

    @Test func deadlinesPerPhase() {
        #expect(policy.deadline(of: .awaitingHead(since: 1_000)) == 11_000)
        #expect(policy.deadline(of: .idle(since: 1_000)) == 16_000)
        #expect(policy.deadline(of: .writing(progress: 1_000)) == 6_000)
        #expect(policy.deadline(of: .streaming(progress: 1_000)) == 6_000)
        #expect(policy.deadline(of: .streaming(progress: nil)) == nil)  // a quiet stream waits for its producer
        #expect(policy.deadline(of: .handling) == nil)
    }

    @Test func theLongestIdleGivesWayFirstThenTheOldestHead() {
        let connections: [(id: UInt64, phase: ConnectionPhase)] = [
            (2, .awaitingHead(since: 100)), (3, .idle(since: 500)), (4, .awaitingHead(since: 50)),
            (5, .idle(since: 300)), (6, .handling), (7, .writing(progress: 10)), (8, .streaming(progress: nil)),
        ]
        #expect(policy.victim(among: connections) == 5)
        #expect(policy.victim(among: connections.filter { $0.id != 5 }) == 3)
        #expect(policy.victim(among: connections.filter { $0.id != 5 && $0.id != 3 }) == 4)
        #expect(policy.victim(among: connections.filter { $0.id >= 6 }) == nil)  // all busy: the newcomer gets 503
        #expect(policy.victim(among: []) == nil)
        // Accepted in the same millisecond: the one accepted first (the lower id) is the older.
        #expect(policy.victim(among: [(9, .awaitingHead(since: 7)), (4, .awaitingHead(since: 7))]) == 4)
    }
}
