import KafkaIO
import Runtime

extension InMemoryBroker {
    /// A consumer group as its coordinator keeps it.
    package struct ConsumerGroup {
        /// Bumped by every rebalance; offsets sent with another generation are refused.
        package var generation: Int
        package var memberIDs: [Int] = []
        package var committed: [TopicPartition: Int64] = [:]
        /// Partitions revoked or lost by the test, kept from every member until assigned again.
        package var withheld: Set<TopicPartition> = []
        /// What each member should own once hand-overs are done.
        package var target: [Int: Set<TopicPartition>] = [:]
        /// Partitions revoked from a member that has not released them yet: not yet given to another.
        package var revokedAwaitingRelease: [TopicPartition: Int] = [:]
    }

    /// A group member: the coordinator's view and the consumer's own (positions, paused).
    package struct GroupMember {
        package let group: String
        /// Where a partition without committed offset starts: the beginning, or the LSO.
        package let startAtEnd: Bool
        /// Its `group.instance.id`: a static member.
        package var instanceID: String?
        /// Its session expired: out of the group until its next poll, which rejoins it.
        package var expired = false
        /// Replaced by a static member with its instance id: every call fails.
        package var fenced = false
        package var topics: [String] = []
        package var joined = false
        package var closed = false
        package var assigned: Set<TopicPartition> = []
        /// Events the member sees at its next poll.
        package var queuedEvents: [RebalanceEvent] = []
        /// Events seen by a poll, drained by `takeRebalanceEvents`.
        package var polledEvents: [RebalanceEvent] = []
        /// The generation the member learnt at its last poll (what `membership()` answers).
        package var knownGeneration = 0
        /// Next offsets to fetch; absent until resolved (committed offset, else the start).
        package var positions: [TopicPartition: Int64] = [:]
        package var paused: Set<TopicPartition> = []
        /// Rotates the partition a fetch starts with, so a busy partition cannot starve the others.
        package var fetchRotation = 0
    }
}

extension InMemoryBroker.State {
    package mutating func addMember(group: String, startAtEnd: Bool, instanceID: String? = nil) -> Int {
        let id = nextID()
        members[id] = InMemoryBroker.GroupMember(group: group, startAtEnd: startAtEnd, instanceID: instanceID)
        return id
    }

    package func groupNames(_ group: String?) -> [String] {
        group.map { groups[$0] == nil ? [] : [$0] } ?? groups.keys.sorted()
    }

    package func member(_ id: Int) throws -> InMemoryBroker.GroupMember {
        if members[id]?.fenced == true {
            throw KafkaError(code: .fenced, message: "static member fenced by a newer instance with its group.instance.id",
                             isFatal: true)
        }
        guard let member = members[id], !member.closed else {
            throw KafkaError(code: .state, message: "consumer closed")
        }
        return member
    }

    package mutating func newGeneration(of group: String) {
        let generation = nextID()
        groups[group]!.generation = generation
        generationGroups[generation] = group
    }

    package mutating func subscribe(member id: Int, to topics: [String]) throws {
        let member = try member(id)
        if groups[member.group] == nil { groups[member.group] = InMemoryBroker.ConsumerGroup(generation: 0) }
        members[id]!.topics = topics
        if !member.joined, let replaced = staticPredecessor(of: id) {
            takePlace(of: replaced, by: id)
            return
        }
        if !member.joined {
            members[id]!.joined = true
            groups[member.group]!.memberIDs.append(id)
        }
        rebalance(member.group)
    }

    /// The member of the group that `id`'s `group.instance.id` names, still in the group.
    func staticPredecessor(of id: Int) -> Int? {
        guard let instanceID = members[id]!.instanceID else { return nil }
        let group = members[id]!.group
        return groups[group]?.memberIDs.first { $0 != id && members[$0]!.instanceID == instanceID }
    }

    /// A static member rejoins: the new member takes the old one's place in the group (so the range
    /// assignment moves nobody else) and its partitions, which it sees assigned at its first poll; the
    /// old one is fenced. The generation moves on, so the old one's offsets are refused.
    mutating func takePlace(of old: Int, by new: Int) {
        let group = members[new]!.group
        let index = groups[group]!.memberIDs.firstIndex(of: old)!
        groups[group]!.memberIDs[index] = new
        members[new]!.joined = true
        let assigned = members[old]!.assigned
        members[new]!.assigned = assigned
        if !assigned.isEmpty { members[new]!.queuedEvents.append(.assigned(assigned.sorted())) }
        members[old]!.assigned = []
        members[old]!.fenced = true
        members[old]!.closed = true
        groups[group]!.target[new] = groups[group]!.target.removeValue(forKey: old)
        // What the old one had yet to release goes to its new owners: the new one never saw it revoked.
        groups[group]!.revokedAwaitingRelease = groups[group]!.revokedAwaitingRelease.filter { $0.value != old }
        newGeneration(of: group)
        _ = grant(group)
    }

    /// The member's session timed out: the group drops it (its partitions go to the others) and it
    /// sees them lost at its next poll, which rejoins it as a new member would.
    mutating func expireSession(member id: Int) {
        guard let member = members[id], member.joined, !member.closed, !member.expired else { return }
        if !member.assigned.isEmpty { removeAssignment(member.assigned, of: id, event: .lost(member.assigned.sorted())) }
        members[id]!.expired = true
        members[id]!.joined = false
        let group = member.group
        groups[group]!.memberIDs.removeAll { $0 == id }
        groups[group]!.target[id] = nil
        groups[group]!.revokedAwaitingRelease = groups[group]!.revokedAwaitingRelease.filter { $0.value != id }
        rebalance(group)
    }

    /// Leaves the group: the member's partitions are revoked (recorded, as KafkaConsumer does) and
    /// the others rebalance at once (a closed member has nothing left to hand over).
    package mutating func leave(member id: Int) {
        guard let member = members[id], !member.closed else { return }
        if !member.assigned.isEmpty { members[id]!.polledEvents.append(.revoked(member.assigned.sorted())) }
        members[id]!.closed = true
        members[id]!.assigned = []
        guard member.joined else { return }
        groups[member.group]!.memberIDs.removeAll { $0 == id }
        groups[member.group]!.target[id] = nil
        groups[member.group]!.revokedAwaitingRelease = groups[member.group]!.revokedAwaitingRelease.filter { $0.value != id }
        rebalance(member.group)
    }

    /// Range assignment per topic over the members subscribed to it (by join order), minus what
    /// the test withheld.
    package func rangeAssignment(_ group: String) -> [Int: Set<TopicPartition>] {
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
    package mutating func rebalance(_ group: String) {
        newGeneration(of: group)
        let target = rangeAssignment(group)
        groups[group]!.target = target
        for id in groups[group]!.memberIDs {
            let revoked = members[id]!.assigned.subtracting(target[id] ?? [])
            guard !revoked.isEmpty else { continue }
            removeAssignment(revoked, of: id, event: .revoked(revoked.sorted()))
            for partition in revoked { groups[group]!.revokedAwaitingRelease[partition] = id }
        }
        _ = grant(group)
    }

    /// Gives members the partitions of their target that nobody else holds or still has to see
    /// revoked. - Returns: whether anything was given.
    package mutating func grant(_ group: String) -> Bool {
        let state = groups[group]!
        let held = Set(state.memberIDs.flatMap { members[$0]!.assigned })
        var granted = false
        for id in state.memberIDs {
            let free = (state.target[id] ?? []).filter { partition in
                !held.contains(partition) && (state.revokedAwaitingRelease[partition].map { $0 == id } ?? true)
            }
            guard !free.isEmpty else { continue }
            members[id]!.assigned.formUnion(free)
            members[id]!.queuedEvents.append(.assigned(free.sorted()))
            for partition in free { groups[group]!.revokedAwaitingRelease[partition] = nil }
            granted = true
        }
        return granted
    }

    package mutating func removeAssignment(_ partitions: Set<TopicPartition>, of id: Int, event: RebalanceEvent) {
        members[id]!.assigned.subtract(partitions)
        members[id]!.queuedEvents.append(event)
        for partition in partitions {
            members[id]!.positions[partition] = nil
            members[id]!.paused.remove(partition)
        }
    }

    package mutating func withhold(_ partitions: [TopicPartition], in group: String, lost: Bool) {
        groups[group]!.withheld.formUnion(partitions)
        if lost {
            for id in groups[group]!.memberIDs {
                let taken = members[id]!.assigned.intersection(partitions)
                if !taken.isEmpty { removeAssignment(taken, of: id, event: .lost(taken.sorted())) }
            }
        }
        rebalance(group)
    }

    /// What a poll does before fetching: the member sees its queued events and learns the generation.
    /// - Returns: whether the member had events to see.
    package mutating func servePoll(member id: Int) -> Bool {
        let group = members[id]!.group
        if members[id]!.expired {
            // Back after its session expired (a zombie that resumed): it rejoins, and sees what that gives it
            // with this poll, before any of its records (as librdkafka assigns in the callback, then fetches).
            members[id]!.expired = false
            if let other = staticPredecessor(of: id) {
                takePlace(of: other, by: id)
            } else {
                members[id]!.joined = true
                groups[group]!.memberIDs.append(id)
                rebalance(group)
            }
        }
        let hadEvents = !members[id]!.queuedEvents.isEmpty
        members[id]!.polledEvents += members[id]!.queuedEvents
        members[id]!.queuedEvents = []
        guard members[id]!.joined else { return hadEvents }
        members[id]!.knownGeneration = groups[group]!.generation
        return hadEvents
    }

    /// The member hands over partitions it saw revoked: they go to their new owners (a second rebalance
    /// when that gives partitions to others). Others are ignored.
    package mutating func release(member id: Int, _ partitions: [TopicPartition]) {
        let group = members[id]!.group
        var released = false
        for partition in partitions where groups[group]?.revokedAwaitingRelease[partition] == id {
            groups[group]!.revokedAwaitingRelease[partition] = nil
            released = true
        }
        if released, grant(group) { newGeneration(of: group) }
    }

    /// Offsets of `group` sent to a transaction that is still open (KIP-447: unstable).
    package func hasPendingOffsets(group: String, for partitions: some Sequence<TopicPartition>) -> Bool {
        openTransactions.values.contains { serial in
            guard let pending = transactions[serial]?.offsets[group] else { return false }
            return partitions.contains { pending[$0] != nil }
        }
    }

    /// Up to `maxRecords` records from the member's assigned, unpaused partitions.
    package mutating func fetch(member id: Int, maxRecords: Int) -> [ConsumedRecord] {
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
    package mutating func resolvePosition(member id: Int, _ partition: TopicPartition) -> Int64? {
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
