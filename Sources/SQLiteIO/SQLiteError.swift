/// What SQLite said went wrong: its result code and message (`sqlite3_errmsg`), e.g. 26, "file is not a database".
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Int32
    public var message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// SQLITE_NOTADB: the file is not an SQLite database.
    public static let notADatabase: Int32 = 26
    /// SQLITE_CANTOPEN: the file cannot be opened.
    public static let cannotOpen: Int32 = 14
}
