#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RocksDBIO
import Testing

@Suite struct RocksDatabaseTests {
    /// A database path in a fresh temporary directory; `remove` deletes both.
    static func temporaryPath() -> String {
        var template = Array((NSTemporaryDirectory() + "tripstream-rocks-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        return String(cString: template) + "/db"
    }

    /// Deletes a database from `temporaryPath` and the directory made for it.
    static func remove(_ path: String) {
        try? RocksDatabase.destroy(path: path)
        rmdir(String(path.dropLast("/db".count)))
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func entries(_ db: RocksDatabase, from: String, below: String, backingUpTo: String? = nil,
                        overlay: RocksWriteBatch? = nil) throws -> [String]
    {
        var seen: [String] = []
        try db.scan(from: bytes(from), below: bytes(below), backingUpTo: backingUpTo.map(bytes), overlay: overlay) {
            key, value in
            seen.append(String(decoding: key, as: UTF8.self) + "=" + String(decoding: value, as: UTF8.self))
            return true
        }
        return seen
    }

    @Test func writesAreScannedInKeyOrderWithinTheRange() throws {
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        let db = try RocksDatabase(path: path)
        let batch = RocksWriteBatch()
        for key in ["b2", "a1", "b1", "c1", "b3"] { batch.put(Self.bytes(key), Self.bytes("v" + key)) }
        try db.write(batch)
        #expect(batch.count == 0)
        #expect(try Self.entries(db, from: "b", below: "c") == ["b1=vb1", "b2=vb2", "b3=vb3"])
        // Backing up to the last key at or before b25 starts the scan at b2.
        #expect(try Self.entries(db, from: "b", below: "c", backingUpTo: "b25") == ["b2=vb2", "b3=vb3"])
        // Nothing at or before b0 within the range: the scan starts at the range's start.
        #expect(try Self.entries(db, from: "b", below: "c", backingUpTo: "b0") == ["b1=vb1", "b2=vb2", "b3=vb3"])
    }

    @Test func anOverlayIsSeenBeforeItIsWrittenAndNotAfterItIsCleared() throws {
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        let db = try RocksDatabase(path: path)
        let committed = RocksWriteBatch()
        committed.put(Self.bytes("k1"), Self.bytes("old"))
        committed.put(Self.bytes("k2"), Self.bytes("old"))
        try db.write(committed)
        let pending = RocksWriteBatch()
        pending.put(Self.bytes("k1"), Self.bytes("new"))
        pending.delete(Self.bytes("k2"))
        pending.put(Self.bytes("k3"), Self.bytes("new"))
        #expect(try Self.entries(db, from: "k", below: "l", overlay: pending) == ["k1=new", "k3=new"])
        // Backing up through the overlay: the last key at or before k25 is k1 (k2 is deleted there).
        #expect(try Self.entries(db, from: "k", below: "l", backingUpTo: "k25", overlay: pending) == ["k1=new", "k3=new"])
        #expect(try Self.entries(db, from: "k", below: "l", backingUpTo: "k35", overlay: pending) == ["k3=new"])
        #expect(try Self.entries(db, from: "k", below: "l") == ["k1=old", "k2=old"])
        pending.clear()
        #expect(try Self.entries(db, from: "k", below: "l", overlay: pending) == ["k1=old", "k2=old"])
    }

    @Test func dataSurvivesReopening() throws {
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        do {
            let db = try RocksDatabase(path: path)
            let batch = RocksWriteBatch()
            batch.put(Self.bytes("user"), Self.bytes("history"))
            try db.write(batch)
            try db.synchronize()
            db.close()
        }
        let reopened = try RocksDatabase(path: path)
        #expect(try Self.entries(reopened, from: "a", below: "z") == ["user=history"])
        reopened.close()
        try RocksDatabase.destroy(path: path)
        let fresh = try RocksDatabase(path: path)
        #expect(try Self.entries(fresh, from: "a", below: "z").isEmpty)
    }

    @Test func anUnopenablePathIsAnErrorNotACrash() {
        #expect(throws: RocksError.self) { _ = try RocksDatabase(path: "/proc/no-such-dir/db") }
    }
}
