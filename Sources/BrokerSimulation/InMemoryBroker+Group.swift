import KafkaIO
import Runtime

extension InMemoryBroker {
    /// A consumer group as its coordinator keeps it.
    struct ConsumerGroup {
        /// Bumped by every rebalance; offsets sent with another generation are refused.
        var generation: Int
        var memberIDs: [Int] = []
        var committed: [TopicPartition: Int64] = [:]
        /// Partitions revoked or lost by the test, kept from every member until assigned again.
        var withheld: Set<TopicPartition> = []
        /// What each member should own once hand-overs are done.
        var target: [Int: Set<TopicPartition>] = [:]
        /// Partitions revoked from a member that has not polled since: not yet given to another.
        var revokedAwaitingPoll: [TopicPartition: Int] = [:]
    }

    /// A group member: the coordinator's view and the consumer's own (positions, paused).
    struct GroupMember {
        let group: String
        /// Where a partition without committed offset starts: the beginning, or the LSO.
        let startAtEnd: Bool
        var topics: [String] = []
        var joined = false
        var closed = false
        var assigned: Set<TopicPartition> = []
        /// Events the member sees at its next poll.
        var queuedEvents: [RebalanceEvent] = []
        /// Events seen by a poll, drained by `takeRebalanceEvents`.
        var polledEvents: [RebalanceEvent] = []
        /// The generation the member learnt at its last poll (what `membership()` answers).
        var knownGeneration = 0
        /// Next offsets to fetch; absent until resolved (committed offset, else the start).
        var positions: [TopicPartition: Int64] = [:]
        var paused: Set<TopicPartition> = []
        /// Rotates the partition a fetch starts with, so a busy partition cannot starve the others.
        var fetchRotation = 0
    }
}

extension InMemoryBroker.State {
    mutating func addMember(group: String, startAtEnd: Bool) -> Int {
        let id = nextID()
        members[id] = InMemoryBroker.GroupMember(group: group, startAtEnd: startAtEnd)
        return id
    }

    func groupNames(_ group: String?) -> [String] {
        group.map { groups[$0] == nil ? [] : [$0] } ?? groups.keys.sorted()
    }

    func member(_ id: Int) throws -> InMemoryBroker.GroupMember {
        guard let member = members[id], !member.closed else {
            throw KafkaError(code: .state, message: "consumer closed")
        }
        return member
    }

    mutating func newGeneration(of group: String) {
        let generation = nextID()
        groups[group]!.generation = generation
        generationGroups[generation] = group
    }

    mutating func subscribe(member id: Int, to topics: [String]) throws {
        let member = try member(id)
        if groups[member.group] == nil { groups[member.group] = InMemoryBroker.ConsumerGroup(generation: 0) }
        members[id]!.topics = topics
        if !member.joined {
            members[id]!.joined = true
            groups[member.group]!.memberIDs.append(id)
        }
        rebalance(member.group)
    }

    /// Leaves the group: the member's partitions are revoked (recorded, as KafkaConsumer does) and
    /// the others rebalance at once (a closed member has nothing left to hand over).
    mutating func leave(member id: Int) {
        guard let member = members[id], !member.closed else { return }
        if !member.assigned.isEmpty { members[id]!.polledEvents.append(.revoked(member.assigned.sorted())) }
        members[id]!.closed = true
        members[id]!.assigned = []
        guard member.joined else { return }
        groups[member.group]!.memberIDs.removeAll { $0 == id }
        groups[member.group]!.target[id] = nil
        groups[member.group]!.revokedAwaitingPoll = groups[member.group]!.revokedAwaitingPoll.filter { $0.value != id }
        rebalance(member.group)
    }

    /// Range assignment per topic over the members subscribed to it (by join order), minus what
    /// the test withheld.
    func rangeAssignment(_ group: String) -> [Int: Set<TopicPartition>] {
        let state = groups[group]!
        var target: [Int: Set<TopicPartition>] = Dictionary(uniqueKeysWithValues: state.memberIDs.map { ($0, []) })
        let topicNames = Set(state.memberIDs.flatMap { members[$0]!.topics })
        for topic in topicNames.sorted() {
            guard let count = topics[topic]?.count else { continue }
            let subscribers = state.memberIDs.filter { members[$0]!.topics.contains(topic) }
            var next = 0
            for (index, memberID) in subscribers.enumerated() {
                let share = count / subscribers.count + (index < count % subscribers.count ? 1 : 0)
                for partition in next..<(next + share) {
                    let topicPartition = TopicPartition(topic: topic, partition: Int32(partition))
                    if !state.withheld.contains(topicPartition) { target[memberID]!.insert(topicPartition) }
                }
                next += share
            }
        }
        return target
    }

    /// A new generation: members lose what they should no longer own (`.revoked` at their next
    /// poll) and get what is free to give (`.assigned`).
    mutating func rebalance(_ group: String) {
        newGeneration(of: group)
        let target = rangeAssignment(group)
        groups[group]!.target = target
        for id in groups[group]!.memberIDs {
            let revoked = members[id]!.assigned.subtracting(target[id] ?? [])
            guard !revoked.isEmpty else { continue }
            removeAssignment(revoked, of: id, event: .revoked(revoked.sorted()))
            for partition in revoked { groups[group]!.revokedAwaitingPoll[partition] = id }
        }
        _ = grant(group)
    }

    /// Gives members the partitions of their target that nobody else holds or still has to see
    /// revoked. - Returns: whether anything was given.
    mutating func grant(_ group: String) -> Bool {
        let state = groups[group]!
        let held = Set(state.memberIDs.flatMap { members[$0]!.assigned })
        var granted = false
        for id in state.memberIDs {
            let free = (state.target[id] ?? []).filter { partition in
                !held.contains(partition) && (state.revokedAwaitingPoll[partition].map { $0 == id } ?? true)
            }
            guard !free.isEmpty else { continue }
            members[id]!.assigned.formUnion(free)
            members[id]!.queuedEvents.append(.assigned(free.sorted()))
            for partition in free { groups[group]!.revokedAwaitingPoll[partition] = nil }
            granted = true
        }
        return granted
    }

    mutating func removeAssignment(_ partitions: Set<TopicPartition>, of id: Int, event: RebalanceEvent) {
        members[id]!.assigned.subtract(partitions)
        members[id]!.queuedEvents.append(event)
        for partition in partitions {
            members[id]!.positions[partition] = nil
            members[id]!.paused.remove(partition)
        }
    }

    mutating func withhold(_ partitions: [TopicPartition], in group: String, lost: Bool) {
        groups[group]!.withheld.formUnion(partitions)
        if lost {
            for id in groups[group]!.memberIDs {
                let taken = members[id]!.assigned.intersection(partitions)
                if !taken.isEmpty { removeAssignment(taken, of: id, event: .lost(taken.sorted())) }
            }
        }
        rebalance(group)
    }

    /// What a poll does before fetching: the member sees its queued events, hands over what it had
    /// revoked (a second rebalance when that gives partitions to others) and learns the generation.
    /// - Returns: whether the member had events to see.
    mutating func servePoll(member id: Int) -> Bool {
        let group = members[id]!.group
        let hadEvents = !members[id]!.queuedEvents.isEmpty
        members[id]!.polledEvents += members[id]!.queuedEvents
        members[id]!.queuedEvents = []
        guard members[id]!.joined else { return hadEvents }
        let handedOver = groups[group]!.revokedAwaitingPoll.filter { $0.value == id }.keys
        if !handedOver.isEmpty {
            for partition in handedOver { groups[group]!.revokedAwaitingPoll[partition] = nil }
            if grant(group) { newGeneration(of: group) }
        }
        members[id]!.knownGeneration = groups[group]!.generation
        return hadEvents
    }

    /// Offsets of `group` sent to a transaction that is still open (KIP-447: unstable).
    func hasPendingOffsets(group: String, for partitions: some Sequence<TopicPartition>) -> Bool {
        openTransactions.values.contains { serial in
            guard let pending = transactions[serial]?.offsets[group] else { return false }
            return partitions.contains { pending[$0] != nil }
        }
    }

    /// Up to `maxRecords` records from the member's assigned, unpaused partitions.
    mutating func fetch(member id: Int, maxRecords: Int) -> [ConsumedRecord] {
        members[id]!.fetchRotation &+= 1
        let member = members[id]!
        let rotation = member.fetchRotation
        let fetchable = member.assigned.subtracting(member.paused).sorted()
        guard !fetchable.isEmpty else { return [] }
        var records: [ConsumedRecord] = []
        for step in 0..<fetchable.count where records.count < maxRecords {
            let partition = fetchable[(rotation + step) % fetchable.count]
            guard let position = resolvePosition(member: id, partition) else { continue }
            let read = readCommitted(partition, from: position, maxRecords: maxRecords - records.count)
            records += read.records
            members[id]!.positions[partition] = read.next
        }
        return records
    }

    /// The member's position in `partition`, resolved on first fetch from the committed offset
    /// (waiting while offsets for it are pending in a transaction), else the start; an offset past
    /// the log end is reset as `auto.offset.reset` says.
    mutating func resolvePosition(member id: Int, _ partition: TopicPartition) -> Int64? {
        let member = members[id]!
        let start = member.startAtEnd ? lastStableOffset(partition) : 0
        if let position = member.positions[partition] {
            if position > (log(partition)?.endOffset ?? 0) { members[id]!.positions[partition] = start }
            return members[id]!.positions[partition]
        }
        guard !hasPendingOffsets(group: member.group, for: [partition]) else { return nil }
        let position = groups[member.group]?.committed[partition] ?? start
        members[id]!.positions[partition] = position
        return position
    }
}
