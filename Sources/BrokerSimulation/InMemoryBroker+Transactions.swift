import KafkaIO
import Runtime

extension InMemoryBroker {
    /// A transaction as its coordinator keeps it.
    package struct Transaction {
        package enum Status { case open, committed, aborted }

        package let transactionalID: String
        package var status = Status.open
        /// The first offset it wrote in each partition (what holds that partition's LSO back).
        package var firstOffsets: [TopicPartition: Int64] = [:]
        /// Offsets sent, by group; they become the groups' committed offsets on commit.
        package var offsets: [String: [TopicPartition: Int64]] = [:]
    }

    /// A transactional producer's client-side state.
    package struct SinkState {
        package struct QueuedRecord {
            package let partition: TopicPartition
            package let key: [UInt8]?
            package let value: [UInt8]?
            package let timestamp: Int64
        }

        package let transactionalID: String
        /// Set by `initTransactions`; fenced once the id's epoch moves past it.
        package var epoch: Int?
        package var transaction: Int?
        /// Makes every call throw (fenced, or an injected fatal error).
        package var fatalError: KafkaError?
        /// The open transaction can only be aborted.
        package var abortableError: KafkaError?
        /// Produced, not yet delivered (delivery happens at flush or commit).
        package var queued: [QueuedRecord] = []
        /// Deliveries since the last flush.
        package var report = DeliveryReport()
    }
}

extension InMemoryBroker.State {
    package mutating func addSink(transactionalID: String) -> Int {
        let id = nextID()
        sinks[id] = InMemoryBroker.SinkState(transactionalID: transactionalID)
        return id
    }

    /// Every sink call starts here: a fenced or broken sink throws; then an injected failure, if
    /// any, is applied as librdkafka would (see ``InMemoryBroker/failNext(_:with:times:)``).
    package mutating func checkSink(_ id: Int, _ operation: InMemoryBroker.Operation) throws {
        let sink = sinks[id]!
        if let fatal = sink.fatalError { throw fatal }
        if let epoch = sink.epoch, epoch != producerEpochs[sink.transactionalID] {
            let fenced = KafkaError(code: .producerFenced,
                                    message: "transactional id \(sink.transactionalID) fenced by a newer producer",
                                    isFatal: true)
            sinks[id]!.fatalError = fenced
            sinks[id]!.transaction = nil
            sinks[id]!.queued = []
            throw fenced
        }
        guard operation != .flush, let injected = takeInjectedFailure(operation) else { return }
        if injected.isFatal { sinks[id]!.fatalError = injected }
        if injected.isTxnRequiresAbort, sink.transaction != nil { sinks[id]!.abortableError = injected }
        throw injected
    }

    package func openTransaction(of id: Int) throws -> Int {
        guard let serial = sinks[id]!.transaction else {
            throw KafkaError(code: .state, message: "no transaction in progress")
        }
        return serial
    }

    package mutating func initTransactions(sink id: Int) throws {
        try checkSink(id, .initTransactions)
        let transactionalID = sinks[id]!.transactionalID
        guard sinks[id]!.epoch == nil else {
            throw KafkaError(code: .state, message: "transactions already initialized")
        }
        producerEpochs[transactionalID, default: 0] += 1
        abortOpenTransaction(of: transactionalID)
        sinks[id]!.epoch = producerEpochs[transactionalID]
    }

    package mutating func begin(sink id: Int) throws {
        try checkSink(id, .begin)
        guard sinks[id]!.epoch != nil else { throw KafkaError(code: .state, message: "transactions not initialized") }
        guard sinks[id]!.transaction == nil else { throw KafkaError(code: .state, message: "transaction already begun") }
        let serial = nextID()
        transactions[serial] = InMemoryBroker.Transaction(transactionalID: sinks[id]!.transactionalID)
        openTransactions[sinks[id]!.transactionalID] = serial
        sinks[id]!.transaction = serial
        sinks[id]!.abortableError = nil
    }

    package mutating func produce(sink id: Int, topic: String, partition: Int32?, key: [UInt8]?, value: [UInt8]?,
                          timestamp: Int64) throws
    {
        try checkSink(id, .produce)
        _ = try openTransaction(of: id)
        if let abortable = sinks[id]!.abortableError { throw abortable }
        let target = try resolvePartition(topic: topic, partition: partition, key: key)
        sinks[id]!.queued.append(.init(partition: target, key: key, value: value, timestamp: timestamp))
    }

    package mutating func flush(sink id: Int) throws -> DeliveryReport {
        try checkSink(id, .flush)
        if let injected = takeInjectedFailure(.flush) {
            if injected.code == .timedOut { throw injected }
            let failed = sinks[id]!.queued.count
            sinks[id]!.queued = []
            sinks[id]!.report.failed += failed
            if sinks[id]!.report.firstError == nil { sinks[id]!.report.firstError = injected.code }
            if sinks[id]!.transaction != nil, failed > 0 {
                var abortable = injected
                abortable.isTxnRequiresAbort = true
                sinks[id]!.abortableError = abortable
            }
        } else {
            deliverQueued(sink: id)
        }
        defer { sinks[id]!.report = DeliveryReport() }
        return sinks[id]!.report
    }

    /// Writes the queued records to their partitions as part of the open transaction.
    package mutating func deliverQueued(sink id: Int) {
        guard let serial = sinks[id]!.transaction else { return }
        for record in sinks[id]!.queued {
            let offset = topics[record.partition.topic]![Int(record.partition.partition)].append(
                .record(key: record.key, value: record.value, timestamp: record.timestamp, transaction: serial))
            if transactions[serial]!.firstOffsets[record.partition] == nil {
                transactions[serial]!.firstOffsets[record.partition] = offset
            }
        }
        sinks[id]!.report.delivered += sinks[id]!.queued.count
        sinks[id]!.queued = []
    }

    package mutating func sendOffsets(sink id: Int, _ offsets: [TopicPartitionOffset], membership: GroupMembership) throws {
        try checkSink(id, .sendOffsets)
        let serial = try openTransaction(of: id)
        if let abortable = sinks[id]!.abortableError { throw abortable }
        guard let group = generationGroups[membership.generation],
              groups[group]?.generation == membership.generation
        else {
            let refused = KafkaError(code: .illegalGeneration,
                                     message: "generation \(membership.generation) is not the group's current one",
                                     isTxnRequiresAbort: true)
            sinks[id]!.abortableError = refused
            throw refused
        }
        for offset in offsets { transactions[serial]!.offsets[group, default: [:]][offset.topicPartition] = offset.offset }
    }

    package mutating func commit(sink id: Int) throws {
        try checkSink(id, .commit)
        let serial = try openTransaction(of: id)
        if let abortable = sinks[id]!.abortableError { throw abortable }
        deliverQueued(sink: id)
        endTransaction(serial, committing: true)
        sinks[id]!.transaction = nil
    }

    package mutating func abort(sink id: Int) throws {
        try checkSink(id, .abort)
        let serial = try openTransaction(of: id)
        sinks[id]!.queued = []
        endTransaction(serial, committing: false)
        sinks[id]!.transaction = nil
        sinks[id]!.abortableError = nil
    }

    package mutating func abortOpenTransaction(of transactionalID: String) {
        if let serial = openTransactions[transactionalID] { endTransaction(serial, committing: false) }
    }

    /// Writes the markers and, on commit, publishes the offsets sent.
    package mutating func endTransaction(_ serial: Int, committing: Bool) {
        guard var transaction = transactions[serial], transaction.status == .open else { return }
        transaction.status = committing ? .committed : .aborted
        transactions[serial] = transaction
        openTransactions[transaction.transactionalID] = nil
        for partition in transaction.firstOffsets.keys {
            topics[partition.topic]![Int(partition.partition)].append(.marker(transaction: serial))
        }
        guard committing else { return }
        for (group, offsets) in transaction.offsets {
            groups[group]?.committed.merge(offsets) { _, sent in sent }
        }
    }
}
