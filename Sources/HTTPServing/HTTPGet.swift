#if canImport(Glibc)
import Glibc
#endif

/// A minimal `GET http://host:port/path` client (IPv4 or a resolvable name, no TLS) for scraping the
/// service's `/metrics`. Returns the body of a 200 answer, nil for anything else.
public enum HTTPGet {
    /// The host, port and path of an `http://` URL; nil when it is not one.
    public static func split(_ url: String) -> (host: String, port: UInt16, path: String)? {
        guard url.hasPrefix("http://") else { return nil }
        let rest = url.dropFirst(7)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<slash]
        let path = slash == rest.endIndex ? "/" : String(rest[slash...])
        var host = String(authority)
        var port: UInt16 = 80
        if let colon = authority.lastIndex(of: ":") {
            guard let parsed = UInt16(authority[authority.index(after: colon)...]) else { return nil }
            host = String(authority[..<colon])
            port = parsed
        }
        guard !host.isEmpty else { return nil }
        return (host, port, path)
    }

    public static func fetch(_ url: String, timeoutSeconds: Int = 2, maximumBytes: Int = 8 << 20) -> [UInt8]? {
        guard let target = split(url) else { return nil }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(target.host, String(target.port), &hints, &list) == 0, let info = list else { return nil }
        defer { freeaddrinfo(list) }
        let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard descriptor >= 0 else { return nil }
        let connection = SocketConnection(descriptor: descriptor, timeoutSeconds: timeoutSeconds)
        guard connect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else { return nil }
        let request = "GET \(target.path) HTTP/1.0\r\nHost: \(target.host)\r\nConnection: close\r\n\r\n"
        guard connection.write(Array(request.utf8)) else { return nil }
        var response: [UInt8] = []
        while response.count < maximumBytes, connection.read(into: &response) {}
        guard let end = response.firstRange(of: [13, 10, 13, 10]) else { return nil }
        let statusLine = String(decoding: response.prefix { $0 != 13 }, as: UTF8.self)
        guard statusLine.split(separator: " ").dropFirst().first == "200" else { return nil }
        return Array(response[end.upperBound...])
    }
}
