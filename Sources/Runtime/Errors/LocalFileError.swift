#if canImport(Glibc)
    import Glibc
#endif

/// A local file or directory (outputs, state, archive) that could not be used.
public enum LocalFileError: Error, CustomStringConvertible, Equatable {
    case notADirectory(String)
    case cannotCreateDirectory(String, reason: String)
    case cannotOpen(String, reason: String)
    case cannotRead(String, reason: String)
    case cannotWrite(String, reason: String)
    case cannotRename(String, to: String, reason: String)
    case cannotDelete(String, reason: String)
    case cannotSync(String, reason: String)
    /// Another process holds `lock`.
    case inUse(String, lock: String)

    /// The reason `errno` gives now.
    public static var systemReason: String { String(cString: strerror(errno)) }

    public var description: String {
        switch self {
        case let .notADirectory(path): "\(path) exists and is not a directory"
        case let .cannotCreateDirectory(path, reason): "cannot create directory \(path): \(reason)"
        case let .cannotOpen(path, reason): "cannot open \(path): \(reason)"
        case let .cannotRead(path, reason): "cannot read \(path): \(reason)"
        case let .cannotWrite(path, reason): "cannot write \(path): \(reason)"
        case let .cannotRename(from, to, reason): "cannot rename \(from) to \(to): \(reason)"
        case let .cannotDelete(path, reason): "cannot delete \(path): \(reason)"
        case let .cannotSync(path, reason): "fsync \(path): \(reason)"
        case let .inUse(path, lock): "\(path) is in use by another archive process (\(lock) is locked)"
        }
    }
}

/// A line of an events file (`tripstream diff`) that is not an event.
public enum EventFileError: Error, CustomStringConvertible, Equatable {
    case lineTooLong(path: String, line: Int, bytes: Int)
    case notAnEvent(path: String, line: Int, reason: String)

    public var description: String {
        switch self {
        case let .lineTooLong(path, line, bytes): "\(path):\(line): line of \(bytes) bytes is too long for an event"
        case let .notAnEvent(path, line, reason): "\(path):\(line): not an event: \(reason)"
        }
    }
}
