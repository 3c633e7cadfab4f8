/// An IPv4 address and port to listen on, from `host:port` (`localhost` means 127.0.0.1).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Nil unless `text` is `a.b.c.d:port` or `localhost:port` with a port in 0...65535 (0 picks a free one).
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            return nil
        }
        let host = text[..<colon] == "localhost" ? "127.0.0.1" : String(text[..<colon])
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets.allSatisfy({ $0.count <= 3 && UInt8($0) != nil }) else { return nil }
        self.init(host: host, port: port)
    }

    /// 127.0.0.0/8: reachable from this machine only.
    public var isLoopback: Bool { host.hasPrefix("127.") }

    public var description: String { "\(host):\(port)" }
}
