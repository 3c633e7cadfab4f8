#if canImport(Glibc)
import Glibc
#endif

/// A raw loopback client for the server tests: sends what a test says, when it says it, and reads with a timeout.
final class TestClient {
    let descriptor: Int32
    private(set) var received: [UInt8] = []
    /// The server closed the connection (end of stream or reset).
    private(set) var closed = false

    /// Connects to 127.0.0.1:`port`; a `receiveBuffer` (bytes) set before connecting keeps the kernel from
    /// buffering much of what the server sends to a client that does not read.
    init(port: UInt16, receiveBuffer: Int32? = nil) {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        precondition(connected == 0, "connect to 127.0.0.1:\(port) failed (errno \(errno))")
    }

    deinit { close(descriptor) }

    func send(_ text: String) { send(bytes: Array(text.utf8)) }

    func send(bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads what arrives within `seconds`; returns early once the server closed, or once `until` holds for the
    /// text received so far.
    @discardableResult
    func read(for seconds: Double, until done: (String) -> Bool = { _ in false }) -> String {
        let deadline = Self.now() + seconds
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while !closed, !done(text), Self.now() < deadline {
            var watch = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&watch, 1, Int32(max(1, (deadline - Self.now()) * 1000))) > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { received.append(contentsOf: chunk[0..<count]) } else { closed = true }
        }
        return text
    }

    var text: String { String(decoding: received, as: UTF8.self) }

    /// 200 responses received so far, by their status lines.
    var okResponses: Int { text.ranges(of: "HTTP/1.1 200 OK\r\n").count }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
