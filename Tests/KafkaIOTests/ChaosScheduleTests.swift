import KafkaIO
import Simulation
import Testing

/// The dev broker's `--chaos` schedule: a seed names the faults and their times, every kind of fault comes up, the
/// cluster is never broken beyond what clients survive, and bad settings are refused with the reason.
@Suite("Chaos schedule")
struct ChaosScheduleTests {
    static let target = ChaosTarget(
        brokerCount: 3,
        topics: [TopicSpec(name: "tripstream.locations", partitions: 8), TopicSpec(name: "tripstream.events", partitions: 8)],
        groups: ["tripstream", "sarama"], transactionalIds: ["tripstream-tripstream-a", "tripstream-tripstream-b"])

    static func steps(seed: UInt64, count: Int, target: ChaosTarget = target, interval: Int64 = 1_000) throws
        -> [ChaosStep]
    {
        let settings = try ChaosSettings(seed: seed, meanInterval: interval)
        return Array(ChaosSchedule(target: target, settings: settings, random: SeededRandom(seed: seed)).prefix(count))
    }

    // MARK: - Determinism

    @Test(.timeLimit(.minutes(5)))
    func theSameSeedGivesTheSameStepsAtTheSameTimes() throws {
        let first = try Self.steps(seed: 42, count: 2_000)
        let second = try Self.steps(seed: 42, count: 2_000)
        #expect(first == second)
        #expect(first.map(\.line) == second.map(\.line))
        let other = try Self.steps(seed: 43, count: 2_000)
        #expect(other.map(\.line) != first.map(\.line), "another seed, other faults")
    }

    // MARK: - Coverage

    @Test(.timeLimit(.minutes(5)), arguments: [0, 1, 7, 42, UInt64.max] as [UInt64])
    func everyKindOfFaultComesUp(seed: UInt64) throws {
        let steps = try Self.steps(seed: seed, count: 1_000)
        let kinds = Set(steps.filter { $0.action == .inject }.map(\.fault.kind))
        #expect(kinds == Set(ChaosFault.Kind.allCases))
        // Every retriable error of every request type, too.
        for request in ChaosFault.Request.allCases {
            let used = Set(steps.flatMap { step -> [KafkaError.Code] in
                guard case let .requestErrors(failed, errors) = step.fault, failed == request else { return [] }
                return errors
            })
            #expect(used == Set(request.retriableErrors), "\(request)")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func theTargetDecidesWhichKindsArePossible() throws {
        let single = ChaosTarget(brokerCount: 1, topics: Self.target.topics, groups: ["g"], transactionalIds: ["t"])
        let requestKinds = Set(ChaosFault.Request.allCases.map(\.kind))
        #expect(Set(single.kinds) == requestKinds.union([.roundTripSpike]), "nothing moves with one broker, none goes down")
        let kinds = Set(try Self.steps(seed: 3, count: 500, target: single).map(\.fault.kind))
        #expect(kinds == requestKinds.union([.roundTripSpike]))

        let unnamed = ChaosTarget(brokerCount: 3, topics: [])
        #expect(!unnamed.kinds.contains(.leaderMove))
        #expect(!unnamed.kinds.contains(.groupCoordinatorMove))
        #expect(!unnamed.kinds.contains(.transactionCoordinatorMove))
        #expect(unnamed.kinds.contains(.brokerDown))
        #expect(Self.target.kinds == ChaosFault.Kind.allCases)
    }

    // MARK: - What the schedule never does

    @Test(.timeLimit(.minutes(5)), arguments: [1, 2, 3] as [UInt64])
    func faultsStaySurvivable(seed: UInt64) throws {
        let interval: Int64 = 400
        let steps = try Self.steps(seed: seed, count: 5_000, interval: interval)
        var down: Set<Int32> = []
        var slowed: Set<Int32> = []
        var lastAt: Int64 = 0
        var lastFaultAt: Int64 = 0
        var healsDue: [ChaosStep] = []
        for step in steps {
            #expect(step.at >= lastAt, "steps come in time order")
            lastAt = step.at
            switch step.action {
            case .heal:
                let index = try #require(healsDue.firstIndex { $0 == step }, "a heal follows its own fault: \(step.line)")
                healsDue.remove(at: index)
                if case let .brokerDown(broker, _) = step.fault { down.remove(broker) }
                if case let .roundTripSpike(broker, _, _) = step.fault { slowed.remove(broker) }
            case .inject:
                #expect(healsDue.allSatisfy { $0.at >= step.at }, "heals due come before the next fault")
                let gap = step.at - lastFaultAt
                #expect(gap >= interval / 2 && gap <= interval * 3 / 2, "gap \(gap) ms")
                lastFaultAt = step.at
                if let lasting = step.fault.milliseconds {
                    healsDue.append(ChaosStep(at: step.at + lasting, action: .heal, fault: step.fault))
                }
                switch step.fault {
                case let .brokerDown(broker, milliseconds):
                    #expect(down.isEmpty, "at most one broker down at a time")
                    #expect((500...3_000).contains(milliseconds))
                    down.insert(broker)
                case let .roundTripSpike(broker, roundTrip, milliseconds):
                    #expect(!slowed.contains(broker))
                    #expect((100...1_500).contains(roundTrip) && roundTrip % 50 == 0)
                    #expect((1_000...4_000).contains(milliseconds))
                    slowed.insert(broker)
                case let .leaderMove(topic, partition, broker):
                    #expect(!down.contains(broker), "a leader moves to a broker that is up")
                    #expect((1...3).contains(broker))
                    let spec = try #require(Self.target.topics.first { $0.name == topic })
                    #expect((0..<spec.partitions).contains(partition))
                case let .coordinatorMove(kind, key, broker):
                    #expect(!down.contains(broker), "a coordinator moves to a broker that is up")
                    #expect((kind == .group ? Self.target.groups : Self.target.transactionalIds).contains(key))
                case let .requestErrors(request, errors):
                    #expect((1...3).contains(errors.count))
                    #expect(errors.allSatisfy(request.retriableErrors.contains))
                }
            }
        }
    }

    // MARK: - Lines

    @Test(.timeLimit(.minutes(5)))
    func linesSayTheKindTheTimeAndWhat() {
        let down = ChaosFault.brokerDown(broker: 2, milliseconds: 1_500)
        #expect(ChaosStep(at: 12_050, action: .inject, fault: down).line == "fault: broker-down at=12.050s broker=2 for=1.500s")
        #expect(ChaosStep(at: 13_550, action: .heal, fault: down).line == "healed: broker-down at=13.550s broker=2")
        #expect(ChaosStep(at: 7, action: .inject, fault: .requestErrors(.endTxn, [.concurrentTransactions, .notCoordinator])).line
            == "fault: end-txn-errors at=0.007s api=EndTxn errors=CONCURRENT_TRANSACTIONS,NOT_COORDINATOR")
        #expect(ChaosStep(at: 1_000, action: .inject, fault: .leaderMove(topic: "t", partition: 3, broker: 1)).line
            == "fault: leader-move at=1.000s topic=t partition=3 broker=1")
        #expect(ChaosStep(at: 1_000, action: .inject, fault: .coordinatorMove(.transaction, key: "x", broker: 3)).line
            == "fault: transaction-coordinator-move at=1.000s transactional-id=x broker=3")
        #expect(ChaosStep(at: 1_000, action: .inject, fault: .coordinatorMove(.group, key: "g", broker: 2)).line
            == "fault: group-coordinator-move at=1.000s group=g broker=2")
        #expect(ChaosStep(at: 61_000, action: .inject, fault: .roundTripSpike(broker: 1, roundTrip: 850, milliseconds: 2_000)).line
            == "fault: rtt-spike at=61.000s broker=1 rtt=850ms for=2.000s")
    }

    // MARK: - Settings

    @Test(.timeLimit(.minutes(5)), arguments: ["", "abc", "-1", "+7", " 7", "7 ", "1.5", "0x10", "1e3", "18446744073709551616"])
    func seedsThatAreNotWholeNumbersAreRefused(text: String) {
        #expect(throws: ChaosSettingsError.seedNotAWholeNumber(text)) { try ChaosSettings(seed: text) }
        #expect("\(ChaosSettingsError.seedNotAWholeNumber(text))".contains("'\(text)'"), "the message quotes the value")
    }

    @Test(.timeLimit(.minutes(5)))
    func wholeNumberSeedsAreTakenAsTheyAre() throws {
        #expect(try ChaosSettings(seed: "0").seed == 0)
        #expect(try ChaosSettings(seed: "42").seed == 42)
        #expect(try ChaosSettings(seed: "18446744073709551615").seed == UInt64.max)
        #expect(try ChaosSettings(seed: "007").seed == 7)
        #expect(try ChaosSettings(seed: "1").meanInterval == 2_000, "a fault every 2 s by default")
    }

    @Test(.timeLimit(.minutes(5)), arguments: [-1, 0, 49, 3_600_001] as [Int64])
    func intervalsOutOfRangeAreRefused(milliseconds: Int64) {
        #expect(throws: ChaosSettingsError.intervalOutOfRange(milliseconds: milliseconds)) {
            try ChaosSettings(seed: "1", meanInterval: milliseconds)
        }
        #expect("\(ChaosSettingsError.intervalOutOfRange(milliseconds: milliseconds))".contains("\(milliseconds)ms"))
    }
}
