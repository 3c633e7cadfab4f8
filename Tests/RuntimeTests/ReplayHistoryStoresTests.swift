import Dispatch
import Domain
import Foundation
import RocksDBIO
@testable import Runtime
import Testing

/// A file replay's history stores: one per partition, in one database, used by several fold threads.
@Suite struct ReplayHistoryStoresTests {
    func scratchDirectory() throws -> String {
        let directory = NSTemporaryDirectory() + "tripstream-stores-\(UUID().uuidString)"
        try ReplayJob.makeDirectory(directory)
        return directory
    }

    @Test func opensOneDatabaseWithAStorePerPartitionAndRemovesIt() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let histories = try ReplayHistoryStores(partitions: 5, at: directory + "/history")
        #expect(histories.stores.count == 5)
        #expect(histories.stores.allSatisfy { $0.database === histories.database })
        histories.stores[3].close()  // a store's close leaves the shared database open for the others
        histories.stores[0].replace("u1", removing: [], adding: [RocksHistoryStoreTests.segment(1_000)])
        try histories.stores[0].commit()
        #expect(histories.stores[0].segments(of: "u1", from: .min).map(\.firstTime) == [1_000])
        #expect(FileManager.default.fileExists(atPath: directory + "/history/CURRENT"))
        histories.remove()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    /// What a previous run left under the path is deleted first: a replay starts from no history.
    @Test func startsFresh() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try ReplayHistoryStores(partitions: 2, at: directory + "/history")
        first.stores[1].replace("u1", removing: [], adding: [RocksHistoryStoreTests.segment(1_000)])
        try first.stores[1].commit()
        first.database.close()  // as a killed run leaves it: closed, not removed
        let second = try ReplayHistoryStores(partitions: 2, at: directory + "/history")
        defer { second.remove() }
        #expect(second.stores[1].segments(of: "u1", from: .min).isEmpty)
    }

    @Test func aDatabaseThatCannotOpenThrows() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(FileManager.default.createFile(atPath: directory + "/history", contents: Data("x".utf8)))
        #expect(throws: (any Error).self) { _ = try ReplayHistoryStores(partitions: 3, at: directory + "/history") }
    }

    /// Partitions' stores written, committed and read by threads at once, each for users of its own,
    /// as the fold threads of a replay use them: every store reads back exactly what it wrote.
    @Test func storesUsedByThreadsAtOnceKeepTheirUsersApart() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let histories = try ReplayHistoryStores(partitions: 4, at: directory + "/history")
        defer { histories.remove() }
        let stores = histories.stores
        DispatchQueue.concurrentPerform(iterations: stores.count) { partition in
            for round in 0..<50 {
                for user in 0..<5 {
                    let time = UnixMillis(round) * 10_000
                    stores[partition].replace("p\(partition)-u\(user)", removing: [],
                                              adding: [RocksHistoryStoreTests.segment(time, tag: UInt32(partition))])
                }
                if round % 7 == 6 { try! stores[partition].commit() }
            }
            try! stores[partition].commit()
        }
        for (partition, store) in stores.enumerated() {
            for user in 0..<5 {
                let segments = store.segments(of: "p\(partition)-u\(user)", from: .min)
                #expect(segments.map(\.firstTime) == (0..<50).map { UnixMillis($0) * 10_000 })
                #expect(segments.allSatisfy { $0.tableVersion == UInt32(partition) })
            }
        }
    }

    /// A replay whose inputs fail to load (the database already opening beside the load) throws the
    /// load's error and leaves no history behind; a good one removes its history at the end too.
    @Test func aReplayLeavesNoHistoryBehindWhetherItFailsOrNot() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fixes = directory + "/fixes.ndjson", geofences = directory + "/geofences.ndjson"
        try Data("{\"userId\":\"u1\",\"createdAt\":\"2026-01-05T08:00:00Z\",\"latitude\":41.1,\"longitude\":-8.6}\n".utf8)
            .write(to: URL(fileURLWithPath: fixes))
        try Data().write(to: URL(fileURLWithPath: geofences))
        func replay(geofences: String, commands: String?, into out: String) throws -> ReplaySummary {
            try ReplayJob.run(ReplayOptions(geofencesPath: geofences, commandsPath: commands, fixesPath: fixes,
                                            outputDirectory: out, settings: FoldSettings()))
        }
        #expect(throws: (any Error).self) { _ = try replay(geofences: directory + "/none.ndjson", commands: nil, into: directory + "/a") }
        #expect(!FileManager.default.fileExists(atPath: directory + "/a/.history"))
        #expect(throws: (any Error).self) { _ = try replay(geofences: geofences, commands: directory + "/none.ndjson", into: directory + "/b") }
        #expect(!FileManager.default.fileExists(atPath: directory + "/b/.history"))
        let summary = try replay(geofences: geofences, commands: nil, into: directory + "/c")
        #expect(summary.fold.fixes == 1)
        #expect(!FileManager.default.fileExists(atPath: directory + "/c/.history"))
    }
}
