import CSQLite
import Synchronization

/// An SQLite database file, the only code that sees SQLite's C API.
///
/// One connection, used under a lock: any thread may call, one statement runs at a time. Results are copied
/// out of SQLite before a call returns; no pointer of SQLite's leaves this file.
public final class SQLiteDatabase: Sendable {
    public enum Mode: Sendable {
        /// The file must exist; nothing is written.
        case readOnly
        /// Created when missing (tests and tools that write a file).
        case readWriteCreate
    }

    public let path: String
    private let connection: Mutex<Connection>

    /// The C handle, closed with the database.
    private struct Connection: ~Copyable {
        let handle: OpaquePointer
        deinit { sqlite3_close_v2(handle) }
    }

    /// Opens the database file at `path`.
    /// - Throws: `SQLiteError`, e.g. `cannotOpen` for a missing file in `.readOnly` mode. A file that is not
    ///   a database opens; the first statement says so (`notADatabase`).
    public init(path: String, mode: Mode = .readOnly) throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags = (mode == .readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(handle)  // SQLite allocates a handle even when opening fails
            throw SQLiteError(code: code, message: message)
        }
        self.path = path
        self.connection = Mutex(Connection(handle: handle))
    }

    /// Runs `sql`, one or more statements that return no rows (creating tables, inserting literals).
    public func execute(_ sql: String) throws(SQLiteError) {
        try connection.withLock { connection throws(SQLiteError) in
            var message: UnsafeMutablePointer<CChar>?
            let code = sqlite3_exec(connection.handle, sql, nil, nil, &message)
            defer { sqlite3_free(message) }
            guard code == SQLITE_OK else {
                throw SQLiteError(code: code, message: message.map { String(cString: $0) } ?? Self.message(connection.handle))
            }
        }
    }

    /// The rows of one statement, its `?` parameters bound in order: at most `limit`.
    public func rows(_ sql: String, _ parameters: [SQLiteValue] = [], limit: Int = .max) throws(SQLiteError)
        -> [[SQLiteValue]]
    {
        try connection.withLock { connection throws(SQLiteError) -> [[SQLiteValue]] in
            let handle = connection.handle
            var prepared: OpaquePointer?
            let code = sqlite3_prepare_v2(handle, sql, -1, &prepared, nil)
            guard code == SQLITE_OK, let statement = prepared else {
                throw SQLiteError(code: code, message: Self.message(handle))
            }
            defer { sqlite3_finalize(statement) }
            for (offset, value) in parameters.enumerated() {
                let bound = Self.bind(value, to: statement, at: Int32(offset + 1))
                guard bound == SQLITE_OK else { throw SQLiteError(code: bound, message: Self.message(handle)) }
            }
            var rows: [[SQLiteValue]] = []
            while rows.count < limit {
                let step = sqlite3_step(statement)
                if step == SQLITE_DONE { break }
                guard step == SQLITE_ROW else { throw SQLiteError(code: step, message: Self.message(handle)) }
                rows.append((0..<sqlite3_column_count(statement)).map { Self.column($0, of: statement) })
            }
            return rows
        }
    }

    // MARK: - Values in and out

    private static func message(_ handle: OpaquePointer) -> String { String(cString: sqlite3_errmsg(handle)) }

    private static func bind(_ value: SQLiteValue, to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch value {
        case .integer(let number): return sqlite3_bind_int64(statement, index, number)
        case .real(let number): return sqlite3_bind_double(statement, index, number)
        case .null: return sqlite3_bind_null(statement, index)
        case .text(let text): return text.withCString { csqlite_bind_text_copy(statement, index, $0, -1) }
        case .blob(let bytes):
            guard let count = Int32(exactly: bytes.count) else { return SQLITE_TOOBIG }
            // An empty blob has no address, and a null address would bind NULL.
            if bytes.isEmpty { return sqlite3_bind_zeroblob(statement, index, 0) }
            return bytes.withUnsafeBytes { csqlite_bind_blob_copy(statement, index, $0.baseAddress, count) }
        }
    }

    private static func column(_ index: Int32, of statement: OpaquePointer) -> SQLiteValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, index) else { return .text("") }
            let count = Int(sqlite3_column_bytes(statement, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default:
            return .null
        }
    }
}
