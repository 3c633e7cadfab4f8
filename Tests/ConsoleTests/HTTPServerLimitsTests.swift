#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import Testing

@testable import HTTPServing

/// The server's defences over real loopback sockets, with limits shrunk so each takes a second or two: the head
/// deadline, the idle timeout, the slowest client giving way at the connection limit, 503 only when every
/// connection is being answered, a handler thread kept for public routes, and streams that neither stall their
/// producer nor outlive their client.
@Suite(.timeLimit(.minutes(5))) struct HTTPServerLimitsTests {
    func server(_ configure: (inout ServerLimits) -> Void = { _ in },
                isPriority: @escaping @Sendable (HTTPRequest) -> Bool = { _ in false },
                handler: @escaping HTTPServer.Handler = { .text(.ok, "path \($0.path)") }) throws -> HTTPServer
    {
        var limits = ServerLimits()
        configure(&limits)
        let server = try HTTPServer(address: ListenAddress(host: "127.0.0.1", port: 0), limits: limits,
                                    isPriority: isPriority, handler: handler)
        server.start()
        return server
    }

    /// One request on a fresh connection, its whole answer.
    func get(_ server: HTTPServer, _ path: String) -> String {
        let client = TestClient(port: server.address.port)
        client.send("GET \(path) HTTP/1.1\r\nConnection: close\r\n\r\n")
        return client.read(for: 10)
    }

    @Test func aTricklingHeadIsCutAtItsDeadline() throws {
        let server = try server { $0.headDeadlineSeconds = 1 }
        defer { server.stop() }
        let client = TestClient(port: server.address.port)
        client.send("GET / HTTP/1.1\r\n")
        // One header line every 0.2 s: never idle long, but the head never ends. 10 s of it would be 50 lines.
        for line in 0..<50 where !client.closed {
            client.send("X-Line-\(line): still typing\r\n")
            client.read(for: 0.2)
        }
        #expect(client.closed)
        #expect(client.text.hasPrefix("HTTP/1.1 408 "))
        #expect(server.counters.headDeadlinesMissed == 1)
    }

    @Test func aKeptAliveConnectionIsClosedWhenIdle() throws {
        let server = try server { $0.idleTimeoutSeconds = 0.5 }
        defer { server.stop() }
        let client = TestClient(port: server.address.port)
        client.send("GET /one HTTP/1.1\r\n\r\n")
        client.read(for: 5) { $0.hasSuffix("path /one") }
        client.send("GET /two HTTP/1.1\r\n\r\n")  // still open: keep-alive
        client.read(for: 5) { $0.hasSuffix("path /two") }
        #expect(client.okResponses == 2)
        #expect(!client.closed)
        client.read(for: 10)
        #expect(client.closed)
        #expect(server.counters.idleConnectionsClosed == 1)
    }

    /// 16 slow heads fill the server; each newcomer's connection closes one of them (the oldest) and is answered.
    /// After each answer one more slow client comes, so the server stays full.
    @Test func aCrowdOfSlowHeadsGivesWayToNewcomers() throws {
        let server = try server { $0.maximumConnections = 16 }
        defer { server.stop() }
        func slowClient() -> TestClient {
            let client = TestClient(port: server.address.port)
            client.send("GET / HTTP/1.1\r\nX-Slow: 1\r\n")
            return client
        }
        let crowd = (0..<16).map { _ in slowClient() }
        let start = TestClient.now()
        while server.openConnections < 16, TestClient.now() - start < 30 { usleep(10_000) }  // all accepted
        var refills: [TestClient] = []
        for index in 0..<10 {
            #expect(get(server, "/new-\(index)").hasSuffix("path /new-\(index)"))
            refills.append(slowClient())
        }
        #expect(server.counters.evictedConnections == 10)
        #expect(server.turnedAwayConnections == 0)
        // The ones that gave way were among the oldest: ten of the first crowd, none of the later ones.
        for client in crowd + refills { client.read(for: 0.05) }
        #expect(crowd.filter(\.closed).count == 10)
        #expect(refills.allSatisfy { !$0.closed })
    }

    /// Only when every open connection is being answered is a newcomer refused, with a 503 that says why.
    @Test func aNewConnectionGets503OnlyWhenEveryOneIsBusy() throws {
        let release = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let server = try server({
            $0.maximumConnections = 4
            $0.handlerThreads = 5  // one is kept for priority requests: four for /block
        }, handler: { request in
            if request.path == "/block" {
                entered.signal()
                release.wait()
            }
            return .text(.ok, "path \(request.path)")
        })
        defer { server.stop() }
        let busy = (0..<4).map { _ in TestClient(port: server.address.port) }
        for client in busy { client.send("GET /block HTTP/1.1\r\nConnection: close\r\n\r\n") }
        for _ in busy { #expect(entered.wait(timeout: .now() + 30) == .success) }  // four handlers running
        let refused = get(server, "/late")
        #expect(refused.hasPrefix("HTTP/1.1 503 "))
        #expect(refused.contains("too many connections"))
        #expect(server.turnedAwayConnections == 1)
        for _ in busy { release.signal() }
        for client in busy { #expect(client.read(for: 10).hasSuffix("path /block")) }
        #expect(get(server, "/after").hasSuffix("path /after"))
    }

    /// Handlers stuck on a slow route hold every thread but the one kept for priority requests.
    @Test func aPriorityRouteIsAnsweredWhileSlowHandlersHoldTheOthers() throws {
        let release = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let server = try server({ $0.handlerThreads = 2 }, isPriority: { $0.path.hasPrefix("/track/") }, handler: { request in
            if request.path == "/slow" {
                entered.signal()
                release.wait()
            }
            return .text(.ok, "path \(request.path)")
        })
        defer { server.stop() }
        let slow = (0..<3).map { _ in TestClient(port: server.address.port) }
        for client in slow { client.send("GET /slow HTTP/1.1\r\nConnection: close\r\n\r\n") }
        // The one thread that takes any request is stuck; two more slow requests queue behind it.
        #expect(entered.wait(timeout: .now() + 30) == .success)
        usleep(100_000)
        #expect(get(server, "/track/abc").hasSuffix("path /track/abc"))
        for _ in slow { release.signal() }
        for client in slow { #expect(client.read(for: 10).hasSuffix("path /slow")) }
    }

    @Test func aStreamReachesItsClientAndEnds() throws {
        let server = try server(handler: { _ in
            HTTPResponse(status: .ok, headers: [("Content-Type", "text/event-stream")], body: .stream { writer in
                for index in 0..<5 { _ = writer.write(Array("data: \(index)\n\n".utf8)) }
            })
        })
        defer { server.stop() }
        let client = TestClient(port: server.address.port)
        client.send("GET /live HTTP/1.1\r\n\r\n")
        let text = client.read(for: 10)
        #expect(client.closed)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.hasSuffix("\r\n\r\ndata: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\n"))
        #expect(server.openConnections == 0)
    }

    /// A page that stops reading: its producer's writes return at once until the buffers fill, then one waits at
    /// most the write timeout and fails, and the connection closes. The producer is never stuck.
    @Test func aStreamToAClientThatDoesNotReadFailsItsWriterAtTheTimeout() throws {
        let outcome = Mutex<(writes: Int, ended: Bool)>((0, false))
        let server = try server({
            $0.writeTimeoutSeconds = 1
            $0.streamBufferBytes = 64 << 10
        }, handler: { _ in
            HTTPResponse(status: .ok, body: .stream { writer in
                let chunk = [UInt8](repeating: 65, count: 16 << 10)
                while writer.write(chunk) { outcome.withLock { $0.writes += 1 } }
                outcome.withLock { $0.ended = true }
            })
        })
        defer { server.stop() }
        let client = TestClient(port: server.address.port, receiveBuffer: 4096)
        client.send("GET /live HTTP/1.1\r\n\r\n")
        let start = TestClient.now()
        while !outcome.withLock(\.ended), TestClient.now() - start < 60 { usleep(50_000) }
        let (writes, ended) = outcome.withLock { $0 }
        #expect(ended)
        #expect(writes > 4)  // it wrote past the stream buffer before it had to wait
        // The loop gives up on the connection too (nothing taken for the write timeout).
        while server.openConnections > 0, TestClient.now() - start < 60 { usleep(50_000) }
        #expect(server.openConnections == 0)
        #expect(server.counters.stalledWritesClosed == 1)
    }

    /// A page closed while its stream is quiet: the server sees the connection end at once, and the producer's
    /// next write fails instead of waiting for a timeout.
    @Test func aStreamEndsWhenItsClientLeaves() throws {
        let ended = Atomic<Bool>(false)
        let server = try server(handler: { _ in
            HTTPResponse(status: .ok, body: .stream { writer in
                while writer.write(Array(": keep-alive\n\n".utf8)) { usleep(50_000) }
                ended.store(true, ordering: .relaxed)
            })
        })
        defer { server.stop() }
        var client: TestClient? = TestClient(port: server.address.port)
        client?.send("GET /live HTTP/1.1\r\n\r\n")
        client?.read(for: 5) { $0.contains("keep-alive") }
        client = nil  // closes the socket
        let start = TestClient.now()
        while !ended.load(ordering: .relaxed), TestClient.now() - start < 30 { usleep(20_000) }
        let producerEnded = ended.load(ordering: .relaxed)
        #expect(producerEnded)
        #expect(server.openConnections == 0)
    }

    @Test func headAnswersWithoutTheBody() throws {
        let server = try server()
        defer { server.stop() }
        let client = TestClient(port: server.address.port)
        client.send("HEAD /page HTTP/1.1\r\nConnection: close\r\n\r\n")
        let text = client.read(for: 10)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.contains("Content-Length: 10\r\n"))
        #expect(text.hasSuffix("\r\n\r\n"))
    }

    /// A HEAD of a stream gets the head only, and the producer still runs to a writer that fails, so what it holds
    /// (a live view's slot) is freed; so does a stream whose client left while its handler ran.
    @Test func aStreamNobodyWillReadStillEndsItsProducer() throws {
        let produced = Atomic<Int>(0)
        let handlerStarted = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let server = try server(handler: { request in
            if request.path == "/slow-live" {
                handlerStarted.signal()
                release.wait()
            }
            return HTTPResponse(status: .ok, body: .stream { writer in
                // As LiveHub does: write until a write fails, then free what the stream held.
                while writer.write(Array("data: x\n\n".utf8)) { usleep(20_000) }
                produced.add(1, ordering: .relaxed)
            })
        })
        defer { server.stop() }
        let head = TestClient(port: server.address.port)
        head.send("HEAD /live HTTP/1.1\r\n\r\n")
        let text = head.read(for: 10)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n") && text.hasSuffix("\r\n\r\n"))
        var leaving: TestClient? = TestClient(port: server.address.port)
        leaving?.send("GET /slow-live HTTP/1.1\r\n\r\n")
        handlerStarted.wait()
        leaving = nil
        usleep(300_000)  // the loop sees the client gone
        release.signal()
        let start = TestClient.now()
        while produced.load(ordering: .relaxed) < 2, TestClient.now() - start < 30 { usleep(20_000) }
        let endedOnAFailedWrite = produced.load(ordering: .relaxed)
        #expect(endedOnAFailedWrite == 2)
    }

    @Test func stoppingClosesEveryConnection() throws {
        let server = try server()
        let clients = (0..<5).map { _ in TestClient(port: server.address.port) }
        for client in clients { client.send("GET / HTTP/1.1\r\n") }
        server.stop()
        for client in clients { client.read(for: 5) }
        #expect(clients.allSatisfy { $0.closed })
    }
}
