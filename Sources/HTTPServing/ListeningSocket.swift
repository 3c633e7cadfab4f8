#if canImport(Glibc)
import Glibc
#endif

/// A bound, listening, non-blocking IPv4 TCP socket.
enum ListeningSocket {
    /// The descriptor and the address bound (its real port when port 0 was asked).
    static func open(_ address: ListenAddress) throws(ServerError) -> (descriptor: Int32, address: ListenAddress) {
        var ip = in_addr()
        guard inet_pton(AF_INET, address.host, &ip) == 1 else { throw .bind(address: "\(address)", errno: EINVAL) }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                                    | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .socket(errno: errno) }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = address.port.bigEndian
        socketAddress.sin_addr = ip
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        // The kernel caps the backlog at net.core.somaxconn; a deep one rides out a burst of connections.
        guard bound == 0, listen(descriptor, 4096) == 0 else {
            let code = errno
            close(descriptor)
            throw .bind(address: "\(address)", errno: code)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return (descriptor, ListenAddress(host: address.host, port: UInt16(bigEndian: actual.sin_port)))
    }
}
