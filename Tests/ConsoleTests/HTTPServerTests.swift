#if canImport(Glibc)
import Glibc
#endif
import Testing

@testable import HTTPServing

/// The server over a real loopback socket: answers, and 4xx for what does not parse.
@Suite(.timeLimit(.minutes(5))) struct HTTPServerTests {
    func exchange(_ port: UInt16, _ request: [UInt8]) -> String {
        let client = TestClient(port: port)
        client.send(bytes: request)
        return client.read(for: 5)
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
