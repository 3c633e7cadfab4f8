#if canImport(Glibc)
import Glibc
#endif
import Testing

@testable import HTTPServing

/// The server over a real loopback socket: answers, and 4xx for what does not parse.
@Suite(.timeLimit(.minutes(5))) struct HTTPServerTests {
    func exchange(_ port: UInt16, _ request: [UInt8]) -> String {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return "" }
        let connection = SocketConnection(descriptor: descriptor, timeoutSeconds: 5)
        _ = connection.write(request)
        var response: [UInt8] = []
        while connection.read(into: &response) {}
        return String(decoding: response, as: UTF8.self)
    }

    @Test func answersAndRefuses() throws {
        let server = try HTTPServer(address: ListenAddress(host: "127.0.0.1", port: 0)) { request in
            .text(.ok, "path \(request.path)")
        }
        server.start()
        defer { server.stop() }
        let port = server.address.port
        #expect(port != 0)
        let ok = exchange(port, Array("GET /hello HTTP/1.1\r\nConnection: close\r\n\r\n".utf8))
        #expect(ok.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(ok.hasSuffix("\r\n\r\npath /hello"))
        // Two requests on one keep-alive connection, the second closing it.
        let two = exchange(port, Array("GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\nConnection: close\r\n\r\n".utf8))
        #expect(two.contains("path /a") && two.contains("path /b"))
        #expect(exchange(port, Array("garbage\r\n\r\n".utf8)).hasPrefix("HTTP/1.1 400 "))
        #expect(exchange(port, Array("GET / HTTP/1.1\r\nX: \(String(repeating: "y", count: 20_000))\r\n\r\n".utf8))
            .hasPrefix("HTTP/1.1 431 "))
        #expect(exchange(port, [0, 1, 2, 255, 13, 10, 13, 10]).hasPrefix("HTTP/1.1 400 "))
        #expect(server.openConnections <= 1)
    }
}
