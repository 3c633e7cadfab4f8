import BrokerSimulation
import Domain
import Foundation
import KafkaIO
import Runtime
import Simulation

/// One seed of `tripstream-sim`: a fleet, 1–4 instances of the runtime's state machine over an
/// in-memory broker, all on this thread in an order drawn from the seed, with a simulated clock and
/// faults drawn from it too; then, faults stopped, the instances must commit every input, and the
/// invariants are checked (``SimulationChecks``). Same seed, same run, step by step.
final class SimulationRun: @unchecked Sendable {
    // Unchecked: a simulation runs on one thread; the executors' log closures call back on it.
    let seed: UInt64
    var random: SeededRandom
    let scenario: SimulationScenario
    let clock: SimulatedClock
    let broker: InMemoryBroker
    let topics = Topics()
    let group = "tripstream-sim"
    let stateRoot: String
    let inputs: SimulatedInputs
    private(set) var published = 0
    /// Where each input was published, in order: what the reference fold takes.
    private(set) var inputOrder: [TopicPartitionOffset] = []
    let instances: [SimulatedInstance]
    private(set) var faults = 0
    /// Faults by kind, and crashes by the producer call they came before.
    private(set) var faultKinds: [String: Int] = [:]
    private(set) var crashPoints: [String: Int] = [:]
    private(set) var violations: [String] = []
    /// What happened, for a failing seed's report (the last lines) or `--trace` (all of them).
    private(set) var trace: [String] = []
    private let keepsTrace: Bool
    /// The state each partition's last committed transaction left in its changelog.
    private(set) var committedStates: [Int32: PartitionState] = [:]
    private(set) var committedInputs = 0
    /// Partitions revoked or lost by a fault, given back at their time.
    private var withheld: [(at: Double, partitions: [TopicPartition])] = []
    private var publishChance = 0.0
    private var boundViolated = false

    private let sabotage: Simulator.Sabotage?

    init(seed: UInt64, keepsTrace: Bool, sabotage: Simulator.Sabotage? = nil) {
        self.seed = seed
        self.keepsTrace = keepsTrace
        self.sabotage = sabotage
        random = SeededRandom(seed: seed)
        scenario = SimulationScenario(random: &random)
        // The wall clock starts after the fleet's event times: its inputs arrive as a backlog, late
        // ones later still; a device clock two days ahead stays ahead.
        let wallStart = scenario.fleet.start + (scenario.fleet.duration + 60) * 1000
        clock = SimulatedClock(start: wallStart)
        broker = InMemoryBroker(clock: clock, blocking: false)
        // In memory where the machine has a place for it: the instances' snapshots and RocksDB stores sync
        // to disk often, and a seed's faults make them do it many times.
        let memory = access("/dev/shm", W_OK) == 0 ? "/dev/shm/" : NSTemporaryDirectory()
        stateRoot = memory + "tripstream-sim-\(getpid())-\(seed)"
        inputs = SimulatedInputs(scenario: scenario, topics: topics, wallStart: wallStart, random: &random)
        instances = (0..<scenario.instances).map { SimulatedInstance(id: "i\($0)") }
    }

    var now: Double { clock.monotonic() }

    func note(_ line: String) {
        let stamped = "\(String(format: "%9.3f", now)) \(line)"
        if keepsTrace || trace.count < 4_000 { trace.append(stamped) } else {
            trace.removeFirst(1_000)
            trace.append(stamped)
        }
    }

    func violation(_ what: String) {
        violations.append(what)
        note("VIOLATION \(what)")
    }

    // MARK: - The run

    func run() -> SimulationOutcome {
        defer { try? FileManager.default.removeItem(atPath: stateRoot) }
        note("seed \(seed): \(scenario.description)")
        for topic in topics.all {
            broker.createTopic(topic, partitions: topic == topics.geofences ? 1 : Int(scenario.partitions))
        }
        while published < inputs.initial { publishNext() }
        let later = inputs.publications.count - inputs.initial
        publishChance = min(1, Double(later) / (3.0 * Double(scenario.faultSteps) * 0.6))
        for instance in instances.prefix(scenario.startingInstances) { start(instance) }

        for _ in 0..<scenario.faultSteps { step(faults: true) }
        endFaults()
        let settled = settle()
        stopAll()
        if sabotage == .forgetOneInput, !inputOrder.isEmpty { inputOrder.removeLast() }
        if settled { SimulationChecks(run: self).check() }
        return SimulationOutcome(seed: seed, faults: faults, violations: violations, trace: trace,
                                 inputs: inputOrder.count, faultKinds: faultKinds, crashPoints: crashPoints)
    }

    /// One step of the schedule: time moves a little, inputs may be published, a fault may strike, and
    /// one instance's driver or producer carries out its next action.
    private func step(faults withFaults: Bool) {
        clock.advance(microseconds: Int64.random(in: 0...3_000, using: &random))
        if published < inputs.publications.count, Double.random(in: 0..<1, using: &random) < publishChance {
            for _ in 0..<Int.random(in: 1...5, using: &random) where published < inputs.publications.count { publishNext() }
        }
        timers()
        if withFaults, Double.random(in: 0..<1, using: &random) < scenario.faultRate { injectFault() }
        var units: [(SimulatedInstance, producer: Bool)] = []
        for instance in instances where instance.isAwake(at: now) {
            units.append((instance, false))
            if instance.executor?.producerHasWork == true, now >= instance.producerSlowUntil { units.append((instance, true)) }
        }
        guard !units.isEmpty else {
            clock.advance(seconds: 0.05)
            return
        }
        let (instance, producer) = units[Int.random(in: 0..<units.count, using: &random)]
        if producer {
            if let armed = instance.crashBeforeCall {
                instance.crashBeforeCall = armed > 1 ? armed - 1 : nil
                if armed == 1 {
                    let call = instance.executor?.producerCallUnderWay ?? "a job's first call"
                    crashPoints[call, default: 0] += 1
                    note("\(instance.id) crashes before \(call)\(instance.wipeOnRestart ? ", its local state lost" : "")")
                    crash(instance, wipe: instance.wipeOnRestart)
                    return
                }
            }
            if keepsTrace { note("\(instance.id) producer: \(instance.executor?.producerCallUnderWay ?? "next job")") }
            instance.executor?.runProducerCall()
        } else {
            drive(instance)
        }
    }

    private func publishNext() {
        let publication = inputs.publications[published]
        published += 1
        do {
            let at = try broker.append(topic: publication.topic, key: publication.key, value: publication.value)
            if publication.topic != topics.geofences { inputOrder.append(at) }
        } catch {
            violation("publishing failed: \(error)")
        }
    }

    /// Sessions expiring, transactions timing out, partitions given back, instances restarting.
    private func timers() {
        for instance in instances {
            if let at = instance.sessionExpiresAt, now >= at {
                instance.sessionExpiresAt = nil
                note("\(instance.id): session expired")
                broker.expireSession(instanceID: instance.id, group: group)
            }
            if let at = instance.transactionTimesOutAt, now >= at {
                instance.transactionTimesOutAt = nil
                note("\(instance.id): open transaction timed out")
                broker.fence(transactionalId: options(for: instance).transactionalId)
            }
            if instance.status == .down, let at = instance.restartAt, now >= at { start(instance) }
        }
        while let first = withheld.first, now >= first.at {
            withheld.removeFirst()
            note("partitions \(first.partitions.map(\.partition)) given back")
            broker.assignAgain(first.partitions, group: group)
        }
    }

    // MARK: - Instances

    func options(for instance: SimulatedInstance) -> RuntimeOptions {
        let base = RuntimeOptions(kafka: KafkaConfiguration(), stateDirectory: stateRoot + "/" + instance.id,
                                  instanceId: instance.id)
        var options = scenario.options(base)
        options.group = group
        return options
    }

    func start(_ instance: SimulatedInstance) {
        instance.restartAt = nil
        if instance.wipeOnRestart {
            try? FileManager.default.removeItem(atPath: stateRoot + "/" + instance.id)
            instance.wipeOnRestart = false
            note("\(instance.id): local state deleted")
        }
        let id = instance.id
        let probes = RuntimeProbes(
            committed: { [unowned self] states in committed(states, by: id) },
            restored: { [unowned self] states in restored(states, by: id) })
        do {
            instance.executor = try RuntimeExecutor(
                options: options(for: instance), metrics: RuntimeMetrics(), log: { [unowned self] in note("\(id): \($0)") },
                broker: broker, clock: clock, mode: .stepped, probes: probes)
            instance.status = .running
            instance.stopHanded = false
            instance.sessionExpiresAt = nil  // a static member back within its session takes its place
            instance.transactionTimesOutAt = nil  // its new producer aborted what the last one left open
            note("\(id): started")
        } catch {
            note("\(id): could not start: \(error)")
            instance.restartAt = now + Double.random(in: 0.2...3, using: &random)
        }
    }

    /// Carries out the instance's next action; an error ends the process as `run` ends (shutdown included).
    private func drive(_ instance: SimulatedInstance) {
        guard let executor = instance.executor else { return }
        let stop = instance.status == .stopping && !instance.stopHanded
        if stop { instance.stopHanded = true }
        do {
            let outcome = try executor.step(stop: stop)
            if outcome == .finished {
                executor.shutdown()
                instance.executor = nil
                instance.status = .down
                note("\(instance.id): stopped")
                return
            }
        } catch {
            note("\(instance.id): failed: \(error)")
            executor.shutdown()
            instance.executor = nil
            instance.status = .down
            instance.restartAt = now + Double.random(in: 0.2...5, using: &random)
            // A producer that could neither abort nor be replaced left its transaction open.
            instance.transactionTimesOutAt = now + 60
            return
        }
        let backlog = executor.backlog
        let options = executor.options
        if !boundViolated, backlog.pendingInputs > options.maxPendingInputs + options.maxPollRecords || backlog.producerJobs > 3 {
            boundViolated = true
            violation("unbounded: \(instance.id) holds \(backlog.pendingInputs) inputs in one partition (bound "
                      + "\(options.maxPendingInputs) + \(options.maxPollRecords)), \(backlog.producerJobs) producer jobs")
        }
    }

    /// Kills the instance: no shutdown, nothing said to the broker.
    func crash(_ instance: SimulatedInstance, wipe: Bool) {
        instance.crashBeforeCall = nil
        guard let executor = instance.executor else { return }
        executor.crash()
        instance.executor = nil
        instance.status = .down
        instance.frozenUntil = 0
        instance.wipeOnRestart = wipe
        instance.restartAt = now + Double.random(in: 0.2...15, using: &random)
        instance.sessionExpiresAt = now + 7
        instance.transactionTimesOutAt = now + 60
    }

    // MARK: - Probes

    private func committed(_ states: [PartitionState], by instance: String) {
        for state in states {
            if let previous = committedStates[state.partition],
                state.checkpoint.locationsOffset < previous.checkpoint.locationsOffset
                    || state.checkpoint.commandsOffset < previous.checkpoint.commandsOffset
            {
                violation("input folded twice: \(instance) committed partition \(state.partition) at "
                          + "\(describe(state.checkpoint)) after \(describe(previous.checkpoint)) was committed")
            }
            committedStates[state.partition] = state
            committedInputs += state.inputs
        }
        note("\(instance): committed \(states.map { "\($0.partition)@\(describe($0.checkpoint))+\($0.inputs)" })")
    }

    private func restored(_ states: [PartitionState], by instance: String) {
        for state in states {
            let expected = committedStates[state.partition]
                ?? PartitionState(partition: state.partition,
                                  checkpoint: PartitionCheckpoint(locationsOffset: 0, commandsOffset: 0, streamTime: .min),
                                  users: [:], inputs: 0)
            guard state.checkpoint != expected.checkpoint || state.users != expected.users else { continue }
            let differing = Set(state.users.keys).union(expected.users.keys).filter { state.users[$0] != expected.users[$0] }
            violation("restore differs from the committed state: \(instance) restored partition \(state.partition) at "
                      + "\(describe(state.checkpoint)), committed \(describe(expected.checkpoint)); "
                      + "\(differing.count) of \(expected.users.count) users differ")
        }
    }

    func describe(_ checkpoint: PartitionCheckpoint) -> String {
        "\(checkpoint.locationsOffset)/\(checkpoint.commandsOffset)"
    }

    // MARK: - Faults

    private func injectFault() {
        let kinds = SimulationFault.Kind.allCases.filter { scenario.faultWeights[$0]! > 0 }
        guard !kinds.isEmpty else { return }
        let total = kinds.reduce(0) { $0 + scenario.faultWeights[$1]! }
        var pick = Double.random(in: 0..<total, using: &random)
        var kind = kinds[0]
        for candidate in kinds {
            pick -= scenario.faultWeights[candidate]!
            if pick < 0 {
                kind = candidate
                break
            }
        }
        if inject(kind) {
            faults += 1
            faultKinds[kind.rawValue, default: 0] += 1
        }
    }

    /// - Returns: whether the fault could strike (an instance to crash, a partition to revoke, ...).
    private func inject(_ kind: SimulationFault.Kind) -> Bool {
        let awake = instances.filter { $0.isAwake(at: now) && $0.status == .running }
        let down = instances.filter { $0.status == .down }
        switch kind {
        case .brokerError:
            let operation = InMemoryBroker.Operation.allCases.randomElement(using: &random)!
            let error = SimulationFault.ErrorKind.allCases.randomElement(using: &random)!
            let times = Int.random(in: 1...2, using: &random)
            note("fault: \(operation) fails \(times)x with \(error)")
            broker.failNext(operation, with: error.error, times: times)
        case .fence:
            guard let instance = awake.randomElement(using: &random) else { return false }
            note("fault: \(instance.id) fenced by a newer producer")
            broker.fence(transactionalId: options(for: instance).transactionalId)
        case .revoke, .lose:
            let all = (0..<scenario.partitions).map { TopicPartition(topic: topics.locations, partition: $0) }
            let chosen = all.filter { _ in Bool.random(using: &random) }
            guard !chosen.isEmpty else { return false }
            note("fault: partitions \(chosen.map(\.partition)) \(kind == .revoke ? "revoked" : "lost")")
            if kind == .revoke { broker.revoke(chosen, group: group) } else { broker.lose(chosen, group: group) }
            withheld.append((now + Double.random(in: 0.2...5, using: &random), chosen))
            withheld.sort { $0.at < $1.at }
        case .sessionExpiry:
            guard let instance = awake.randomElement(using: &random) else { return false }
            instance.frozenUntil = now + Double.random(in: 8...20, using: &random)
            instance.sessionExpiresAt = now + 7
            note("fault: \(instance.id) frozen until \(String(format: "%.3f", instance.frozenUntil)), past its session")
        case .crash:
            guard let instance = awake.randomElement(using: &random) else { return false }
            if Bool.random(using: &random) {
                // Armed: it crashes right before one of its producer's next calls, so that every step of
                // the commit protocol is hit.
                instance.crashBeforeCall = Int.random(in: 1...8, using: &random)
                instance.wipeOnRestart = Double.random(in: 0..<1, using: &random) < 0.4
                note("fault: \(instance.id) will crash before its producer's call \(instance.crashBeforeCall!) from now")
                return true
            }
            crashPoints[instance.executor?.producerCallUnderWay ?? "between commits", default: 0] += 1
            let wipe = Double.random(in: 0..<1, using: &random) < 0.4
            let pending = instance.executor?.producerCallUnderWay.map { " before \($0)" } ?? ""
            note("fault: \(instance.id) crashes\(pending)\(wipe ? ", its local state lost" : "")")
            crash(instance, wipe: wipe)
        case .join:
            guard let instance = down.randomElement(using: &random) else { return false }
            note("fault: \(instance.id) joins")
            instance.sessionExpiresAt = nil
            start(instance)
        case .leave:
            guard awake.count > 1, let instance = awake.randomElement(using: &random) else { return false }
            note("fault: \(instance.id) leaves")
            instance.status = .stopping
        case .slowProducer:
            guard let instance = awake.randomElement(using: &random) else { return false }
            instance.producerSlowUntil = now + Double.random(in: 0.2...5, using: &random)
            note("fault: \(instance.id)'s producer slow until \(String(format: "%.3f", instance.producerSlowUntil))")
        case .clockJump:
            let seconds = Double.random(in: 1...90, using: &random)
            note("fault: the clock jumps \(Int(seconds)) s")
            clock.advance(seconds: seconds)
        }
        return true
    }

    // MARK: - The end

    /// Faults stop: injected failures cleared, partitions given back, zombies thawed, producers quick
    /// again, and an instance running.
    private func endFaults() {
        note("faults stop")
        for instance in instances { instance.crashBeforeCall = nil }
        for operation in InMemoryBroker.Operation.allCases { broker.clearFailures(operation) }
        for (_, partitions) in withheld { broker.assignAgain(partitions, group: group) }
        withheld.removeAll()
        for instance in instances {
            instance.producerSlowUntil = 0
        }
        if !instances.contains(where: \.isRunning) {
            let instance = instances[0]
            instance.restartAt = now
        }
    }

    /// Runs without faults until every input is committed. - Returns: false (a liveness violation)
    /// when that takes more than 600 s of simulated time.
    private func settle() -> Bool {
        let deadline = now + 600
        var steps = 0
        while now < deadline {
            step(faults: false)
            steps += 1
            if steps % 40 == 0, published == inputs.publications.count, everythingCommitted() { return true }
            if !instances.contains(where: { $0.isRunning || $0.restartAt != nil }) { instances[0].restartAt = now }
        }
        let ends = inputEnds()
        let offsets = broker.groupOffsets(group: group)
        let behind = ends.filter { (offsets[$0.key] ?? 0) < $0.value }
            .map { "\($0.key.topic)[\($0.key.partition)] at \(offsets[$0.key] ?? 0) of \($0.value)" }.sorted()
        violation("liveness: 600 s after the faults stopped, inputs not committed: \(behind.joined(separator: ", "))")
        return false
    }

    /// The end of each input partition (fixes and trip commands).
    func inputEnds() -> [TopicPartition: Int64] {
        var ends: [TopicPartition: Int64] = [:]
        for topic in [topics.locations, topics.tripCommands] {
            for partition in 0..<scenario.partitions {
                let tp = TopicPartition(topic: topic, partition: partition)
                ends[tp] = broker.logEndOffset(tp) ?? 0
            }
        }
        return ends
    }

    private func everythingCommitted() -> Bool {
        let offsets = broker.groupOffsets(group: group)
        return inputEnds().allSatisfy { (offsets[$0.key] ?? 0) >= $0.value }
    }

    /// Every running instance stops gracefully (folds what it fetched, commits, leaves the group).
    private func stopAll() {
        for instance in instances where instance.isRunning {
            instance.status = .stopping
            instance.frozenUntil = 0
        }
        for instance in instances { instance.restartAt = nil }
        var steps = 0
        while instances.contains(where: \.isRunning), steps < 200_000 {
            steps += 1
            clock.advance(microseconds: 1_000)
            let running = instances.filter(\.isRunning)
            let instance = running[Int.random(in: 0..<running.count, using: &random)]
            if instance.executor?.producerHasWork == true, Bool.random(using: &random) {
                instance.executor?.runProducerCall()
            } else {
                drive(instance)
            }
        }
        for instance in instances where instance.isRunning {
            violation("\(instance.id) did not stop")
            instance.executor?.crash()
        }
        // Time passes: the transactions the dead left open time out (their outputs would hold the
        // topics' last stable offsets back).
        for instance in instances where instance.transactionTimesOutAt != nil {
            instance.transactionTimesOutAt = nil
            broker.fence(transactionalId: options(for: instance).transactionalId)
        }
    }
}

/// How a seed went.
package struct SimulationOutcome: Sendable {
    package var seed: UInt64
    package var faults: Int
    package var violations: [String]
    package var trace: [String]
    /// Fixes and trip commands published.
    package var inputs: Int
    /// Faults by kind, and crashes by the producer call they came before.
    package var faultKinds: [String: Int]
    package var crashPoints: [String: Int]
}
