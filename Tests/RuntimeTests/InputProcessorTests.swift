import Codec
import Domain
import Runtime
import Testing

@Suite struct InputProcessorTests {
    /// What the Kafka runtime folds: inputs decoded once on arrival. A record that did not decode
    /// becomes a dead letter with its original bytes when its turn comes, and is counted.
    @Test func aPreDecodedInvalidRecordBecomesADeadLetterAtItsTurn() throws {
        var processor = InputProcessor(settings: FoldSettings())
        var output = OutputBatch(newlineSeparated: false)
        let bad = Array(#"{"userId":"u1","createdAt":"2026-13-01T00:00:00Z","latitude":1,"longitude":2}"#.utf8)
        let good = Array(#"{"userId":"u1","createdAt":"2026-01-01T00:00:00Z","latitude":1,"longitude":2}"#.utf8)
        let source = RecordSource(topic: "tripstream.locations", partition: 2, offset: 41)
        for bytes in [bad, good] {
            bytes.withUnsafeBytes { value in
                processor.process(DecodedInput.fix(bytes), key: Array("u1".utf8), value: value, source: source,
                                  geofences: GeofenceTable(), processingTime: 1_767_225_600_000, into: &output)
            }
        }
        #expect(processor.counters.recordsIn == 2)
        #expect(processor.counters.deadLetters[.badTimestamp] == 1)
        #expect(processor.fold.counters.fixes == 1)
        #expect(output.deadLetters.count == 1)
        var letters: [DeadLetter] = []
        try output.deadLetters.forEach { _, value in letters.append(try DeadLetterDecoder.decode(value)) }
        #expect(letters.first?.value == bad)
        #expect(letters.first?.offset == 41 && letters.first?.partition == 2)
    }
}
