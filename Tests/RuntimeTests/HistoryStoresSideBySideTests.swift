import Foundation
import RocksDBIO
@testable import Runtime
import Testing

/// A file replay's history stores, opened and removed side by side.
@Suite struct HistoryStoresSideBySideTests {
    func scratchDirectory() throws -> String {
        let directory = NSTemporaryDirectory() + "tripstream-stores-\(UUID().uuidString)"
        try ReplayJob.makeDirectory(directory)
        return directory
    }

    @Test func opensAStorePerPartitionAndRemovesThem() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stores = try HistoryStoresSideBySide.open(5, in: directory)
        #expect(stores.map(\.database.path) == (0..<5).map { directory + "/partition-\($0)" })
        for store in stores {
            try store.commit()
            #expect(FileManager.default.fileExists(atPath: store.database.path + "/CURRENT"))
        }
        HistoryStoresSideBySide.remove(stores)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    /// One store that cannot be opened (its directory's place is taken by a file) fails the whole
    /// open, and the stores opened beside it are removed again.
    @Test func aStoreThatCannotOpenRemovesTheOthers() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(FileManager.default.createFile(atPath: directory + "/partition-2", contents: Data("x".utf8)))
        #expect(throws: (any Error).self) { _ = try HistoryStoresSideBySide.open(4, in: directory) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["partition-2"])
    }
}
