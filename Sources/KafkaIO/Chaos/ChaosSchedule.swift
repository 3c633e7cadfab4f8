/// An endless, seeded plan of faults and their heals, in time order: the same random source (seeded alike), target
/// and settings give the same steps, so a seed names a fault schedule.
///
/// Faults come one every ``ChaosSettings/meanInterval`` on average, each of a kind drawn evenly from those the
/// target allows and the cluster's state permits: at most one broker is down at a time, a broker already slowed is
/// not slowed again, and leaders and coordinators move only to brokers that are up. A fault that lasts (a broker
/// down, a round-trip spike) is followed by its heal.
///
/// It is a value with no clock: the caller runs each step when its time has come (see
/// ``MockCluster/apply(_:)``). As a `Sequence` it never ends; take a `prefix`.
public struct ChaosSchedule<Random: RandomNumberGenerator>: Sequence, IteratorProtocol {
    public let target: ChaosTarget
    public let settings: ChaosSettings
    private let kinds: [ChaosFault.Kind]
    private var random: Random
    private var nextFaultAt: Int64
    /// Heals not yet returned, in time order (ties in the order their faults came).
    private var heals: [ChaosStep] = []

    /// How long a broker stays down, a round trip is slowed by, and a spike lasts, in milliseconds.
    static var downtimes: ClosedRange<Int64> { 500...3_000 }
    static var roundTrips: ClosedRange<Int32> { 100...1_500 }
    static var spikes: ClosedRange<Int64> { 1_000...4_000 }

    /// - Parameter random: the source of every choice, e.g. a SplitMix64 seeded with ``ChaosSettings/seed``.
    public init(target: ChaosTarget, settings: ChaosSettings, random: Random) {
        self.target = target
        self.settings = settings
        self.random = random
        kinds = target.kinds
        nextFaultAt = 0
        nextFaultAt = gap()
    }

    /// The next step: the earliest pending heal, or else the next fault.
    public mutating func next() -> ChaosStep? {
        if let heal = heals.first, heal.at <= nextFaultAt {
            heals.removeFirst()
            return heal
        }
        let step = ChaosStep(at: nextFaultAt, action: .inject, fault: fault())
        if let lasting = step.fault.milliseconds {
            let heal = ChaosStep(at: step.at + lasting, action: .heal, fault: step.fault)
            heals.insert(heal, at: heals.firstIndex { $0.at > heal.at } ?? heals.endIndex)
        }
        nextFaultAt += gap()
        return step
    }

    // MARK: - Drawing

    private mutating func gap() -> Int64 {
        Int64.random(in: settings.meanInterval / 2...settings.meanInterval * 3 / 2, using: &random)
    }

    /// Brokers down or slowed now: those whose heal is pending.
    private func brokers(in kind: ChaosFault.Kind) -> Set<Int32> {
        Set(heals.compactMap { heal in
            switch heal.fault {
            case let .brokerDown(broker, _) where kind == .brokerDown: broker
            case let .roundTripSpike(broker, _, _) where kind == .roundTripSpike: broker
            default: nil
            }
        })
    }

    private mutating func fault() -> ChaosFault {
        let down = brokers(in: .brokerDown)
        let slowed = brokers(in: .roundTripSpike)
        let all = (1...Int32(Swift.max(target.brokerCount, 1))).map { $0 }
        let up = all.filter { !down.contains($0) }
        let possible = kinds.filter { kind in
            switch kind {
            case .brokerDown: down.isEmpty
            case .roundTripSpike: slowed.count < all.count
            default: true
            }
        }
        // Request errors need nothing, so `possible` is never empty.
        switch pick(possible) {
        case .brokerDown:
            return .brokerDown(broker: pick(up), milliseconds: Int64.random(in: Self.downtimes, using: &random))
        case .roundTripSpike:
            let roundTrip = Int32.random(in: Self.roundTrips, using: &random) / 50 * 50
            return .roundTripSpike(broker: pick(all.filter { !slowed.contains($0) }), roundTrip: roundTrip,
                                   milliseconds: Int64.random(in: Self.spikes, using: &random))
        case .leaderMove:
            let topic = pick(target.topics.filter { $0.partitions > 0 })
            return .leaderMove(topic: topic.name, partition: Int32.random(in: 0..<topic.partitions, using: &random),
                               broker: pick(up))
        case .groupCoordinatorMove:
            return .coordinatorMove(.group, key: pick(target.groups), broker: pick(up))
        case .transactionCoordinatorMove:
            return .coordinatorMove(.transaction, key: pick(target.transactionalIds), broker: pick(up))
        case let kind:
            // Every other kind fails a request type: one to three of its retriable errors.
            let request = kind.request ?? .produce
            var errors: [KafkaError.Code] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) { errors.append(pick(request.retriableErrors)) }
            return .requestErrors(request, errors)
        }
    }

    private mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[Int.random(in: 0..<elements.count, using: &random)]
    }
}

extension ChaosSchedule: Sendable where Random: Sendable {}
