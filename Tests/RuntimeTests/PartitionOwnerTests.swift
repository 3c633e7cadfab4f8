import Codec
import Domain
import Foundation
import KafkaIO
import Testing

@testable import Runtime

/// The two-stream merge of one owned partition (`StreamMerge`, driven through its owner): a head waits while the other stream may still
/// deliver something older, and a stream counts as at its end once everything below the high
/// watermark of its latest fetch was taken.
@Suite struct PartitionOwnerTests {
    static let topics = Topics()

    static func fix(_ offset: Int64, second: Int) -> ConsumedRecord {
        let value = #"{"userId":"u1","createdAt":"2026-01-01T00:00:\#(String(format: "%02d", second))Z","latitude":41.15,"longitude":-8.61}"#
        return ConsumedRecord(topic: topics.locations, partition: 0, offset: offset, key: Array("u1".utf8),
                              value: Array(value.utf8), timestamp: 1_767_225_600_000 + Int64(offset))
    }

    static func startCommand(_ offset: Int64, second: Int) -> ConsumedRecord {
        let value = #"{"type":"start","userId":"u1","createdAt":"2026-01-01T00:00:\#(String(format: "%02d", second))Z","trip":{"externalId":"t\#(offset)","destinationGeofenceTag":"dropoff","destinationGeofenceExternalId":"d1","mode":"car"}}"#
        return ConsumedRecord(topic: topics.tripCommands, partition: 0, offset: offset, key: Array("u1".utf8),
                              value: Array(value.utf8), timestamp: 1_767_225_600_000)
    }

    /// Folds what is ready without the merge's wait running out.
    static func fold(_ owner: PartitionOwner) {
        owner.foldReady(geofences: GeofenceTable(), now: 1_767_225_700_000, monotonic: 0, source: topics)
    }

    /// Folds with the merge's wait run out (`seconds`, the monotonic clock, moves 10 s on each call).
    static func forceFold(_ owner: PartitionOwner, _ seconds: inout Double) {
        seconds += 10
        owner.foldReady(geofences: GeofenceTable(), now: 1_767_225_700_000, monotonic: seconds, source: topics)
    }

    @Test func aFixWaitsUntilTheBrokerConfirmsTheCommandsEndAfterTheFixWasTaken() throws {
        let owner = PartitionOwner(partition: 0, settings: FoldSettings(), checkpoint: nil, history: try TestHistory.store(),
                                   monotonic: 0)
        owner.take(command: Self.startCommand(0, second: 1), round: 1)
        owner.take(fix: Self.fix(0, second: 2), round: 1)
        owner.take(fix: Self.fix(1, second: 3), round: 2)
        Self.fold(owner)
        #expect(owner.foldedCommands == 1)
        #expect(owner.foldedFixes == 0, "the commands stream may still hold something older than the fix")
        #expect(owner.merge.awaitsCommandsEnd && !owner.merge.awaitsFixesEnd)

        owner.merge.confirmEnds(fixes: nil, commands: .init(end: 2, position: 1), round: 1)
        Self.fold(owner)
        #expect(owner.foldedFixes == 0, "offset 1 of the commands is written but not yet taken")

        owner.merge.confirmEnds(fixes: nil, commands: .init(end: 1, position: 1), round: 1)
        Self.fold(owner)
        #expect(owner.foldedFixes == 1, "only the fix taken in round 1 may pass a confirmation of round 1")
        #expect(owner.merge.awaitsCommandsEnd)

        owner.merge.confirmEnds(fixes: nil, commands: .init(end: 1, position: nil), round: 2)
        Self.fold(owner)
        #expect(owner.foldedFixes == 2)
        #expect(!owner.merge.awaitsCommandsEnd)
        #expect(owner.locationsOffset == 2 && owner.commandsOffset == 1)
        #expect(owner.uncommittedTimestamps.count == 3, "every folded input's timestamp awaits the commit")
    }

    @Test func aReaderPositionPastTransactionMarkersCountsAsTaken() throws {
        let owner = PartitionOwner(partition: 0, settings: FoldSettings(), checkpoint: nil, history: try TestHistory.store(),
                                   monotonic: 0)
        owner.take(fix: Self.fix(0, second: 2), round: 1)
        // Commands from a transactional producer: offset 0 is data... none here; 0 and 1 are markers.
        owner.merge.confirmEnds(fixes: nil, commands: .init(end: 2, position: 2), round: 1)
        Self.fold(owner)
        #expect(owner.foldedFixes == 1)
    }

    @Test func aCommandWaitsForTheFixesEndAndForTheirEventTime() throws {
        let owner = PartitionOwner(partition: 0, settings: FoldSettings(), checkpoint: nil, history: try TestHistory.store(),
                                   monotonic: 0)
        owner.take(fix: Self.fix(0, second: 4), round: 1)
        owner.merge.confirmEnds(fixes: nil, commands: .init(end: 0, position: nil), round: 1)
        Self.fold(owner)
        #expect(owner.foldedFixes == 1)

        owner.take(command: Self.startCommand(0, second: 5), round: 2)
        #expect(owner.merge.awaitsFixesEnd)
        owner.merge.confirmEnds(fixes: .init(end: 1, position: nil), commands: nil, round: 2)
        Self.fold(owner)
        #expect(owner.foldedCommands == 0, "fixes up to second 5 may still be on their way from the devices")

        owner.take(fix: Self.fix(1, second: 6), round: 3)
        Self.fold(owner)
        #expect(owner.foldedCommands == 1 && owner.foldedFixes == 1, "the command goes before the newer fix")
        owner.merge.confirmEnds(fixes: nil, commands: .init(end: 1, position: nil), round: 3)
        Self.fold(owner)
        #expect(owner.foldedFixes == 2)
    }

    @Test func forcingSkipsASilentStreamButNotOneTheBrokerSaysIsBehind() throws {
        let owner = PartitionOwner(partition: 0, settings: FoldSettings(), checkpoint: nil, history: try TestHistory.store(),
                                   monotonic: 0)
        owner.take(command: Self.startCommand(0, second: 1), round: 1)
        owner.take(fix: Self.fix(0, second: 2), round: 2)
        owner.merge.confirmEnds(fixes: nil, commands: .init(end: 3, position: 1), round: 2)
        var seconds = 0.0
        Self.forceFold(owner, &seconds)
        #expect(owner.foldedFixes == 0, "commands 1 and 2 are written, and the reader will fetch them")

        owner.merge.confirmEnds(fixes: nil, commands: nil, round: 3)  // the broker did not answer
        Self.forceFold(owner, &seconds)
        #expect(owner.foldedFixes == 0, "the last answer still stands")

        owner.take(command: Self.startCommand(1, second: 9), round: 4)
        Self.forceFold(owner, &seconds)
        #expect(owner.foldedFixes == 1, "the fix is older than the head command")
        #expect(owner.foldedCommands == 2, "then the command, forced past the silent fixes stream")
        #expect(owner.merge.forcedMerges == 1)

        owner.take(fix: Self.fix(1, second: 10), round: 5)
        Self.forceFold(owner, &seconds)
        #expect(owner.merge.commandsBehind, "command 2 is written and not yet taken")
        #expect(owner.foldedFixes == 1)
        owner.take(command: Self.startCommand(2, second: 11), round: 6)
        Self.forceFold(owner, &seconds)
        #expect(owner.foldedFixes == 2 && !owner.merge.commandsBehind)
    }

    @Test func aRedeliveredRecordIsTakenOnce() throws {
        let owner = PartitionOwner(partition: 0, settings: FoldSettings(), checkpoint: nil, history: try TestHistory.store(),
                                   monotonic: 0)
        owner.take(fix: Self.fix(0, second: 2), round: 1)
        owner.take(fix: Self.fix(0, second: 2), round: 2)
        #expect(owner.pendingCount == 1)
        owner.take(command: Self.startCommand(0, second: 1), round: 2)
        owner.take(command: Self.startCommand(0, second: 1), round: 3)
        #expect(owner.pendingCount == 2)
    }

    /// A record with a null value (a tombstone, as a producer deletes a key of a compacted topic) is
    /// dead-lettered as such, with its key, not as an empty record.
    @Test func aTombstoneFixOrCommandIsDeadLetteredAsATombstone() throws {
        let owner = PartitionOwner(partition: 0, settings: FoldSettings(), checkpoint: nil, history: try TestHistory.store(),
                                   monotonic: 0)
        owner.take(fix: ConsumedRecord(topic: Self.topics.locations, partition: 0, offset: 0, key: Array("u1".utf8),
                                       value: nil, timestamp: 1_767_225_600_000), round: 1)
        owner.take(command: ConsumedRecord(topic: Self.topics.tripCommands, partition: 0, offset: 0, key: Array("u1".utf8),
                                           value: nil, timestamp: 1_767_225_600_000), round: 1)
        var seconds = 0.0
        Self.forceFold(owner, &seconds)
        var letters: [DeadLetter] = []
        try owner.output.deadLetters.forEach { _, value in letters.append(try DeadLetterDecoder.decode(value)) }
        #expect(letters.map(\.topic).sorted() == [Self.topics.locations, Self.topics.tripCommands])
        #expect(letters.allSatisfy { $0.reason == .notAnObject && $0.detail.contains("tombstone") && $0.key == Array("u1".utf8) },
                "\(letters.map(\.detail))")
        #expect(owner.engine.processorCounters.deadLetters[.notAnObject] == 2)
    }

    /// A seal encodes each user changed since the last one once, in its newest state (users topic and
    /// changelog).
    @Test func aSealEncodesEachChangedUserOnceInItsNewestState() throws {
        let owner = PartitionOwner(partition: 0, settings: FoldSettings(), checkpoint: nil, history: try TestHistory.store(),
                                   monotonic: 0)
        let now: UnixMillis = 1_767_225_700_000
        func round(_ record: ConsumedRecord, _ round: UInt64) {
            owner.take(fix: record, round: round)
            owner.merge.confirmEnds(fixes: nil, commands: .init(end: 0, position: nil), round: round)
            Self.fold(owner)
        }
        round(Self.fix(0, second: 2), 1)
        round(Self.fix(1, second: 3), 2)
        let batch = owner.seal(geofences: GeofenceTable(), now: now, horizon: FoldSettings().replayHorizon)
        let userRecords = batch.changelog.filter { $0.key == Array("u1".utf8) }
        #expect(userRecords.count == 1)
        let newest = try TimelineCodec.decode(try #require(userRecords.last?.value))
        #expect(newest.newestTime == 1_767_225_603_000, "the record holds the state after both fixes")
        #expect(newest.tail.count == 2)
        #expect(batch.output.users.count == 1)
        #expect(batch.changelog.last?.key == PartitionCheckpoint.key)

        #expect(owner.seal(geofences: GeofenceTable(), now: now, horizon: FoldSettings().replayHorizon).changelog.allSatisfy { $0.key != Array("u1".utf8) },
                "nothing changed since the last seal")
    }
}
