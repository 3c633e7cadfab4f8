import BrokerSimulation
import Codec
import Domain
import Foundation
import KafkaIO
import Runtime
import Testing

/// The geofence topic is a global table read from its beginning by every start: a record it
/// rejects has no input partition, no offset to commit and no second reading in this run. Its dead
/// letter must still reach the dead-letter topic, whether the record was there before the start or
/// its transaction was aborted.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct GeofenceDeadLetterTests {
    /// Appends a record the geofence decoder rejects after the fleet's geofences; returns its offset.
    static func appendBadGeofence(_ harness: FakeBrokerHarness) throws -> Int64 {
        try harness.broker.append(topic: harness.topics.geofences, key: Array("bad/one".utf8),
                                  value: Array("{not json".utf8)).offset
    }

    /// The committed dead letters of records of the geofence topic.
    static func geofenceDeadLetters(_ harness: FakeBrokerHarness) throws -> [DeadLetter] {
        try harness.broker.committedRecords(topic: harness.topics.deadLetters).compactMap { record in
            let letter = try DeadLetterDecoder.decode(record.value ?? [])
            return letter.topic == harness.topics.geofences ? letter : nil
        }
    }

    @Test func aGeofenceRejectedWhileLoadingTheTableIsDeadLettered() throws {
        let harness = try FakeBrokerHarness(users: 10, minutes: 3, seed: 5)
        let offset = try Self.appendBadGeofence(harness)
        let runtime = harness.start(instance: "a")
        #expect(harness.waitUntilCommitted([runtime]), "inputs not committed")
        #expect(runtime.halt())
        #expect(runtime.failure == nil, "\(String(describing: runtime.failure))")
        let letters = try Self.geofenceDeadLetters(harness)
        #expect(letters.map(\.offset) == [offset])
        #expect(letters.first?.reason == .invalidJSON)
        #expect(letters.first?.value == Array("{not json".utf8))
        #expect(runtime.metrics.snapshot.processor.deadLetters[.invalidJSON] == 1)
        #expect(runtime.metrics.snapshot.geofences == harness.geofences.count)
    }

    @Test func aGeofenceDeadLetterOfAnAbortedTransactionGoesInTheNextOne() throws {
        let harness = try FakeBrokerHarness(users: 10, minutes: 3, seed: 5)
        let offset = try Self.appendBadGeofence(harness)
        // The first transaction carries the dead letter; it aborts.
        harness.broker.failNext(.commit, with: KafkaError(code: .unknown, message: "injected: abortable",
                                                          isTxnRequiresAbort: true))
        let runtime = harness.start(instance: "a")
        #expect(harness.waitUntilCommitted([runtime]), "inputs not committed")
        #expect(runtime.halt())
        #expect(runtime.failure == nil, "\(String(describing: runtime.failure))")
        #expect(runtime.metrics.snapshot.transactionsAborted == 1)
        #expect(try Self.geofenceDeadLetters(harness).map(\.offset) == [offset])
    }
}
