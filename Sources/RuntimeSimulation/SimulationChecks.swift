import BrokerSimulation
import Codec
import Domain
import KafkaIO
import Runtime

/// The invariants checked once a seed's instances committed every input and stopped (those checked
/// along the way, restores and bounds, are the run's):
/// - the committed events, upserted by `_id`, equal the reference fold of the committed inputs;
/// - no `_id` is committed again, as an original, with other content than its latest publication;
/// - every input is folded once: the committed transactions' inputs add up to the inputs published, and
///   each partition's last checkpoint is at its inputs' ends;
/// - every input the reference fold rejects is dead-lettered exactly once, and no other; every geofence
///   record it rejects at least once (each start reads the geofence topic again).
struct SimulationChecks {
    let run: SimulationRun

    func check() {
        let records = committedInputs()
        let geofenceRecords = run.broker.committedRecords(topic: run.topics.geofences)
        let (table, geofenceLetters) = ReferenceFold.geofenceTable(geofenceRecords)
        var expected = OutputBatch(newlineSeparated: false)
        for partition in 0..<run.scenario.partitions {
            expected.append(contentsOf: ReferenceFold.outputs(of: records[partition] ?? [], topics: run.topics,
                                                              geofences: table))
        }
        checkEvents(expected)
        checkInputsFoldedOnce()
        checkDeadLetters(expected, geofences: geofenceLetters)
    }

    /// Each partition's inputs in the order they were published (fixes and commands interleaved).
    private func committedInputs() -> [Int32: [ConsumedRecord]] {
        var byPlace: [TopicPartitionOffset: ConsumedRecord] = [:]
        for topic in [run.topics.locations, run.topics.tripCommands] {
            for record in run.broker.committedRecords(topic: topic) {
                byPlace[TopicPartitionOffset(topic: topic, partition: record.partition, offset: record.offset)] = record
            }
        }
        var records: [Int32: [ConsumedRecord]] = [:]
        for place in run.inputOrder {
            guard let record = byPlace[place] else {
                run.violation("input \(place.topic)[\(place.partition)]@\(place.offset) not readable")
                continue
            }
            records[place.partition, default: []].append(record)
        }
        return records
    }

    private func checkEvents(_ expected: OutputBatch) {
        var reference: [Event] = []
        expected.events.forEach { _, value in
            if let event = try? EventDecoder.decode(Array(value)).event { reference.append(event) }
        }
        var committed: [Event] = []
        for record in run.broker.committedRecords(topic: run.topics.events) {
            guard let value = record.value else { continue }
            do {
                committed.append(try EventDecoder.decode(value).event)
            } catch {
                run.violation("an event committed unreadable: \(error)")
            }
        }
        let want = Self.upserted(reference), have = Self.upserted(committed)
        let missing = want.keys.filter { have[$0] == nil }.sorted()
        let extra = have.keys.filter { want[$0] == nil }.sorted()
        let different = want.keys.filter { have[$0] != nil && have[$0] != want[$0] }.sorted()
        if !missing.isEmpty || !extra.isEmpty || !different.isEmpty {
            let example = (different.first.map { "differs: \(want[$0]!) vs \(have[$0]!)" }
                ?? missing.first.map { "missing: \(want[$0]!)" } ?? extra.first.map { "extra: \(have[$0]!)" })!
            run.violation("committed events are not the reference fold's: of \(want.count), \(missing.count) missing, "
                          + "\(extra.count) extra, \(different.count) different; e.g. \(example)")
        }
        // An original republished must equal the latest publication of its `_id`: a consumer upserting by
        // `_id` only sees content change when an event says so (corrected, retracted).
        var latest: [String: String] = [:]
        var divergent = 0
        for event in committed {
            let id = event.id.hexString, content = EventDiff.comparable(event)
            if event.revision == .original, let last = latest[id], last != content { divergent += 1 }
            latest[id] = content
        }
        if divergent > 0 { run.violation("\(divergent) _ids committed again as originals with other content") }
    }

    /// Events as a consumer upserting by `_id` ends with them (a retraction removes), without processing time.
    static func upserted(_ events: [Event]) -> [String: String] {
        var byID: [String: Event] = [:]
        for event in events { byID[event.id.hexString] = event }
        return byID.filter { $0.value.revision != .retracted }.mapValues(EventDiff.comparable)
    }

    private func checkInputsFoldedOnce() {
        let total = run.inputOrder.count
        if run.committedInputs != total {
            run.violation("committed transactions folded \(run.committedInputs) inputs, \(total) were published")
        }
        let ends = run.inputEnds()
        for partition in 0..<run.scenario.partitions {
            let fixes = ends[TopicPartition(topic: run.topics.locations, partition: partition)] ?? 0
            let commands = ends[TopicPartition(topic: run.topics.tripCommands, partition: partition)] ?? 0
            let checkpoint = run.committedStates[partition]?.checkpoint
            guard fixes + commands > 0 else { continue }
            if checkpoint?.locationsOffset != fixes || checkpoint?.commandsOffset != commands {
                run.violation("partition \(partition)'s last checkpoint is at "
                              + "\(checkpoint.map(run.describe) ?? "none"), its inputs end at \(fixes)/\(commands)")
            }
        }
    }

    private func checkDeadLetters(_ expected: OutputBatch, geofences: OutputBatch) {
        func places(_ batch: RecordBuffer) -> [String] {
            var places: [String] = []
            batch.forEach { _, value in
                if let letter = try? DeadLetterDecoder.decode(Array(value)), letter.partition >= 0 {
                    places.append("\(letter.topic)[\(letter.partition)]@\(letter.offset) \(letter.reason.rawValue)")
                }
            }
            return places
        }
        var committed: [String: Int] = [:]
        for record in run.broker.committedRecords(topic: run.topics.deadLetters) {
            guard let value = record.value, let letter = try? DeadLetterDecoder.decode(value) else {
                run.violation("a dead letter committed unreadable")
                continue
            }
            guard letter.partition >= 0 else { continue }  // an output over the size limit
            committed["\(letter.topic)[\(letter.partition)]@\(letter.offset) \(letter.reason.rawValue)", default: 0] += 1
        }
        let inputLetters = committed.filter { !$0.key.hasPrefix(run.topics.geofences + "[") }
        let expectedInputs = Set(places(expected.deadLetters))
        let twice = inputLetters.filter { $0.value > 1 }.keys.sorted()
        if !twice.isEmpty { run.violation("inputs dead-lettered more than once: \(twice.prefix(3))") }
        let unexpected = Set(inputLetters.keys).subtracting(expectedInputs).sorted()
        let missing = expectedInputs.subtracting(inputLetters.keys).sorted()
        if !unexpected.isEmpty || !missing.isEmpty {
            run.violation("dead letters are not the reference fold's: missing \(missing.prefix(3)), unexpected \(unexpected.prefix(3))")
        }
        let missingGeofences = Set(places(geofences.deadLetters)).subtracting(committed.keys).sorted()
        if !missingGeofences.isEmpty { run.violation("geofence records rejected without a dead letter: \(missingGeofences)") }
    }
}
