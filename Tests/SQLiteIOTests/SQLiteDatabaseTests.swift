import Foundation
import SQLiteIO
import Testing

@Suite(.timeLimit(.minutes(5))) struct SQLiteDatabaseTests {
    /// A fresh path in a temporary directory, removed after `body`.
    func withTemporaryPath(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqliteio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory.appendingPathComponent("test.db").path)
    }

    @Test func writesAndReadsEveryKindOfValue() throws {
        try withTemporaryPath { path in
            let database = try SQLiteDatabase(path: path, mode: .readWriteCreate)
            try database.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n)")
            let values: [SQLiteValue] = [.integer(-7), .real(2.5), .text("é ✓"), .blob([0, 1, 255]), .null]
            _ = try database.rows("INSERT INTO t VALUES (?, ?, ?, ?, ?)", values)
            _ = try database.rows("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [.integer(1), .real(0), .text(""), .blob([]), .null])
            let rows = try database.rows("SELECT i, r, s, b, n FROM t ORDER BY i")
            #expect(rows == [values, [.integer(1), .real(0), .text(""), .blob([]), .null]])
        }
    }

    @Test func parametersAreBoundNotSpliced() throws {
        try withTemporaryPath { path in
            let database = try SQLiteDatabase(path: path, mode: .readWriteCreate)
            try database.execute("CREATE TABLE t (s TEXT)")
            _ = try database.rows("INSERT INTO t VALUES (?)", [.text("x'); DROP TABLE t; --")])
            #expect(try database.rows("SELECT s FROM t") == [[.text("x'); DROP TABLE t; --")]])
        }
    }

    @Test func aLimitStopsEarly() throws {
        try withTemporaryPath { path in
            let database = try SQLiteDatabase(path: path, mode: .readWriteCreate)
            try database.execute("CREATE TABLE t (i); INSERT INTO t VALUES (1), (2), (3);")
            #expect(try database.rows("SELECT i FROM t ORDER BY i", limit: 2) == [[.integer(1)], [.integer(2)]])
        }
    }

    @Test func aMissingFileCannotBeOpenedReadOnly() throws {
        try withTemporaryPath { path in
            #expect(throws: SQLiteError.self) { try SQLiteDatabase(path: path) }
            #expect(!FileManager.default.fileExists(atPath: path))  // and none was made
        }
    }

    @Test func aFileThatIsNotADatabaseSaysSoAtItsFirstStatement() throws {
        try withTemporaryPath { path in
            try Data("not a database, just text that is long enough to have a header".utf8).write(to: URL(fileURLWithPath: path))
            let database = try SQLiteDatabase(path: path)
            do throws(SQLiteError) {
                _ = try database.rows("SELECT name FROM sqlite_master")
                Issue.record("read a text file as a database")
            } catch {
                #expect(error.code == SQLiteError.notADatabase)
                #expect(error.message == "file is not a database")
            }
        }
    }

    @Test func errorsNameTheProblem() throws {
        try withTemporaryPath { path in
            let database = try SQLiteDatabase(path: path, mode: .readWriteCreate)
            #expect(throws: SQLiteError.self) { try database.rows("SELECT * FROM nowhere") }
            do throws(SQLiteError) { _ = try database.rows("SELECT * FROM nowhere") } catch { #expect(error.message == "no such table: nowhere") }
            #expect(throws: SQLiteError.self) { try database.execute("NOT SQL") }
        }
    }

    @Test func aReadOnlyDatabaseRefusesWrites() throws {
        try withTemporaryPath { path in
            try SQLiteDatabase(path: path, mode: .readWriteCreate).execute("CREATE TABLE t (i)")
            let database = try SQLiteDatabase(path: path)
            #expect(throws: SQLiteError.self) { try database.execute("INSERT INTO t VALUES (1)") }
        }
    }

    @Test func manyThreadsShareOneDatabase() async throws {
        try withTemporaryPath { path in
            let writer = try SQLiteDatabase(path: path, mode: .readWriteCreate)
            try writer.execute("CREATE TABLE t (i INTEGER PRIMARY KEY, v BLOB)")
            for i in 0..<100 { _ = try writer.rows("INSERT INTO t VALUES (?, ?)", [.integer(Int64(i)), .blob([UInt8(i)])]) }
            let reader = try SQLiteDatabase(path: path)
            DispatchQueue.concurrentPerform(iterations: 400) { n in
                let i = Int64(n % 100)
                let rows = try? reader.rows("SELECT v FROM t WHERE i = ?", [.integer(i)])
                #expect(rows == [[.blob([UInt8(i)])]])
            }
        }
    }
}
