/// Why the server could not start.
public enum ServerError: Error, Equatable, CustomStringConvertible {
    case socket(errno: Int32)
    case bind(address: String, errno: Int32)

    public var description: String {
        switch self {
        case .socket(let code): "socket() failed (errno \(code))"
        case .bind(let address, let code): "cannot listen on \(address) (errno \(code))"
        }
    }
}
