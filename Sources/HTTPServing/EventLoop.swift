#if canImport(Glibc)
import Glibc
#endif
import CLinuxEvents
import Foundation
import Synchronization

/// The server's one I/O thread: accepts, reads request heads, sends responses and streams, over epoll, with no
/// blocking call; handlers run on the ``WorkerPool`` and answer through the ``LoopMailbox``. Every timeout and
/// every choice of which connection gives way comes from ``SlowClientPolicy``.
final class EventLoop: @unchecked Sendable {
    // Safe: `connections`, `nextID`, the accept pause and `scratch` are only touched by the thread in `run()`;
    // the rest is immutable, atomic (`counters`) or locked (`mailbox`, `pool`).
    typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    private static let listenerToken: UInt64 = 0
    private static let mailboxToken: UInt64 = 1
    /// How often deadlines are checked: a timeout fires at most this late.
    private static let sweepMilliseconds: Int64 = 100

    private let epoll: Int32
    private let listener: Int32
    private let mailbox: LoopMailbox
    private let pool: WorkerPool
    private let handler: Handler
    private let isPriority: @Sendable (HTTPRequest) -> Bool
    private let limits: ServerLimits
    private let policy: SlowClientPolicy
    let counters: ServerCounters

    private var connections: [UInt64: ServerConnection] = [:]
    private var nextID: UInt64 = 2
    private var acceptFailures = 0
    private var acceptPausedUntil: Int64?
    private var scratch = [UInt8](repeating: 0, count: 16 << 10)

    init(listener: Int32, limits: ServerLimits, pool: WorkerPool, counters: ServerCounters,
         isPriority: @escaping @Sendable (HTTPRequest) -> Bool, handler: @escaping Handler) throws(ServerError)
    {
        let mailbox = try LoopMailbox()
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw .socket(errno: errno) }
        self.mailbox = mailbox
        self.listener = listener
        self.pool = pool
        self.limits = limits
        self.policy = SlowClientPolicy(limits: limits)
        self.counters = counters
        self.isPriority = isPriority
        self.handler = handler
        watch(listener, token: Self.listenerToken, events: EPOLLIN.rawValue, operation: EPOLL_CTL_ADD)
        watch(mailbox.descriptor, token: Self.mailboxToken, events: EPOLLIN.rawValue, operation: EPOLL_CTL_ADD)
    }

    /// Any thread: the loop ends at its next turn, closing every connection.
    func stop() { mailbox.post(.stop) }

    /// The loop; returns after ``stop()``, with every connection, the listener and the epoll descriptor closed.
    func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        var nextSweep = MonotonicClock.milliseconds() + Self.sweepMilliseconds
        var running = true
        while running {
            let count = epoll_wait(epoll, &events, Int32(events.count), Int32(Self.sweepMilliseconds))
            let now = MonotonicClock.milliseconds()
            for index in 0..<max(0, Int(count)) {
                let token = events[index].data.u64
                switch token {
                case Self.listenerToken: acceptAll(now: now)
                case Self.mailboxToken: running = deliverMessages(now: now)
                default: serviceIO(connection: token, events: events[index].events, now: now)
                }
            }
            if now >= nextSweep {
                sweep(now: now)
                nextSweep = now + Self.sweepMilliseconds
            }
        }
        for connection in Array(connections.values) { closeConnection(connection) }
        close(listener)
        close(epoll)
    }

    // MARK: - Accepting

    private func acceptAll(now: Int64) {
        while acceptPausedUntil == nil {
            let descriptor = accept(listener, nil, nil)
            if descriptor < 0 {
                let code = errno
                if code == EAGAIN || code == EWOULDBLOCK { return }
                acceptFailures += 1
                guard let pause = AcceptBackoff.pause(afterAcceptFailure: code, consecutive: acceptFailures) else { continue }
                // Out of descriptors: stop watching the listener until the pause is over (`sweep` resumes).
                acceptPausedUntil = now + SlowClientPolicy.milliseconds(pause)
                watch(listener, token: Self.listenerToken, events: 0, operation: EPOLL_CTL_MOD)
                return
            }
            acceptFailures = 0
            admit(descriptor, now: now)
        }
    }

    private func admit(_ descriptor: Int32, now: Int64) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        var yes: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        if connections.count >= limits.maximumConnections {
            if let victim = policy.victim(among: connections.values.lazy.map { (id: $0.id, phase: $0.phase) }),
                let connection = connections[victim]
            {
                counters.evicted.add(1, ordering: .relaxed)
                closeConnection(connection, abortively: true)
            } else {
                counters.turnedAway.add(1, ordering: .relaxed)
                sendOnce(descriptor, Self.errorBytes(.serviceUnavailable, "too many connections"))
                close(descriptor)
                return
            }
        }
        let interest = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
        let connection = ServerConnection(id: nextID, descriptor: descriptor, phase: .awaitingHead(since: now),
                                          interest: interest)
        nextID += 1
        connections[connection.id] = connection
        counters.open.add(1, ordering: .relaxed)
        watch(descriptor, token: connection.id, events: interest, operation: EPOLL_CTL_ADD)
        // A client that sent its request with the connection (most do) is answered before the next accept can
        // make it give way.
        guard receive(connection, into: &connection.input), !connection.input.isEmpty else { return }
        dispatchRequest(connection, now: now)
    }

    // MARK: - Reading

    private func serviceIO(connection id: UInt64, events: UInt32, now: Int64) {
        guard let connection = connections[id] else { return }
        let readable = events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
        if readable {
            switch connection.phase {
            case .awaitingHead, .idle:
                guard receive(connection, into: &connection.input) else { return }
                if case .idle = connection.phase, !connection.input.isEmpty { connection.phase = .awaitingHead(since: now) }
                dispatchRequest(connection, now: now)
            case .streaming:
                // A stream's client sends nothing; what it sends is dropped, and its leaving ends the stream at once.
                var discarded: [UInt8] = []
                guard receive(connection, into: &discarded) else { return }
            case .handling, .writing:
                if events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
                    closeConnection(connection)
                    return
                }
            }
        }
        if events & EPOLLOUT.rawValue != 0, connections[id] != nil { flush(connection, now: now) }
    }

    /// Appends what the socket holds to `input`; false when the connection closed (and is closed now).
    private func receive(_ connection: ServerConnection, into input: inout [UInt8]) -> Bool {
        // A head past its limit fails to parse anyway: read no further than that.
        while input.count <= HTTPRequestParser.maximumHeadBytes + 4 {
            let count = scratch.withUnsafeMutableBytes { recv(connection.descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                input.append(contentsOf: scratch[0..<count])
                continue
            }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return true }
            if count < 0, errno == EINTR { continue }
            closeConnection(connection)  // the client closed, or the connection failed
            return false
        }
        return true
    }

    private func dispatchRequest(_ connection: ServerConnection, now: Int64) {
        switch HTTPRequestParser.parse(connection.input) {
        case .incomplete:
            return
        case .failure(let error):
            counters.refused.add(1, ordering: .relaxed)
            connection.input = []
            connection.phase = .handling
            respond(connection, HTTPResponse.error(error.status, "bad request: \(error)"), keepAlive: false,
                    headOnly: false, now: now)
        case .request(let request, let consumed):
            connection.input.removeFirst(consumed)
            connection.phase = .handling
            setInterest(connection, 0)
            let keepAlive = request.keepAlive && connection.requestsServed + 1 < limits.requestsPerConnection
            let id = connection.id
            pool.submit(priority: isPriority(request)) { [handler, mailbox] in
                mailbox.post(.respond(connection: id, handler(request), keepAlive: keepAlive,
                                      headOnly: request.method == "HEAD"))
            }
        }
    }

    // MARK: - Answering

    /// Handles the mailbox; false once told to stop.
    private func deliverMessages(now: Int64) -> Bool {
        for message in mailbox.takeAll() {
            switch message {
            case .stop:
                return false
            case .respond(let id, let response, let keepAlive, let headOnly):
                guard let connection = connections[id], connection.phase == .handling else {
                    // The client left while its handler ran. A stream's producer still runs, once, to a closed
                    // writer: it may hold something (a live view's slot) that it frees only when its writes fail.
                    if case .stream(let produce) = response.body { run(produce, to: closedChannel()) }
                    continue
                }
                respond(connection, response, keepAlive: keepAlive, headOnly: headOnly, now: now)
            case .streamReady(let id):
                guard let connection = connections[id], case .streaming = connection.phase,
                    !connection.hasPendingOutput
                else { continue }
                flush(connection, now: now)
            }
        }
        return true
    }

    private func respond(_ connection: ServerConnection, _ response: HTTPResponse, keepAlive: Bool, headOnly: Bool,
                         now: Int64)
    {
        connection.requestsServed += 1
        switch response.body {
        case .bytes(let bytes):
            // A HEAD answer has the GET's Content-Length and no body.
            connection.output = response.head(keepAlive: keepAlive) + (headOnly ? [] : bytes)
            connection.keepAlive = keepAlive
            connection.phase = .writing(progress: now)
        case .stream(let produce):
            connection.output = response.head(keepAlive: false)
            connection.keepAlive = false
            if headOnly {
                connection.phase = .writing(progress: now)
                run(produce, to: closedChannel())  // a HEAD gets no stream, but its producer must end all the same
            } else {
                let id = connection.id
                let channel = StreamChannel(bufferBytes: limits.streamBufferBytes, timeoutSeconds: limits.writeTimeoutSeconds,
                                            notify: { [mailbox] in mailbox.post(.streamReady(connection: id)) })
                connection.stream = channel
                connection.phase = .streaming(progress: now)
                run(produce, to: channel)
            }
        }
        connection.outputSent = 0
        flush(connection, now: now)
    }

    /// Runs a stream's producer on a thread of its own; the channel learns when it returns.
    private func run(_ produce: @escaping @Sendable (StreamWriter) -> Void, to channel: StreamChannel) {
        let thread = Thread {
            produce(channel)
            channel.finish()
        }
        thread.name = "http-stream"
        thread.stackSize = 512 << 10
        thread.start()
    }

    /// A writer whose every write fails at once.
    private func closedChannel() -> StreamChannel {
        let channel = StreamChannel(bufferBytes: 0, timeoutSeconds: 0, notify: {})
        channel.close()
        return channel
    }

    /// Sends what the kernel takes now; then, with the response done, closes, waits for the next request, or takes
    /// the stream's next bytes.
    private func flush(_ connection: ServerConnection, now: Int64) {
        while true {
            while connection.hasPendingOutput {
                let count = connection.output.withUnsafeBytes {
                    send(connection.descriptor, $0.baseAddress! + connection.outputSent, $0.count - connection.outputSent,
                         Int32(MSG_NOSIGNAL))
                }
                if count > 0 {
                    connection.outputSent += count
                    if case .writing = connection.phase { connection.phase = .writing(progress: now) }
                    if case .streaming = connection.phase { connection.phase = .streaming(progress: now) }
                    continue
                }
                if count < 0, errno == EINTR { continue }
                if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                    let streamEvents = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
                    setInterest(connection, EPOLLOUT.rawValue | (connection.stream == nil ? 0 : streamEvents))
                    return
                }
                closeConnection(connection)
                return
            }
            connection.output = []
            connection.outputSent = 0
            switch connection.phase {
            case .writing:
                guard connection.keepAlive else {
                    closeConnection(connection)
                    return
                }
                connection.phase = .idle(since: now)
                setInterest(connection, EPOLLIN.rawValue | EPOLLRDHUP.rawValue)
                if !connection.input.isEmpty {  // a pipelined request already arrived
                    connection.phase = .awaitingHead(since: now)
                    dispatchRequest(connection, now: now)
                }
                return
            case .streaming:
                guard let stream = connection.stream else { return }
                let (bytes, finished) = stream.take()
                if bytes.isEmpty {
                    if finished {
                        closeConnection(connection)
                    } else {
                        connection.phase = .streaming(progress: nil)
                        setInterest(connection, EPOLLIN.rawValue | EPOLLRDHUP.rawValue)
                    }
                    return
                }
                connection.output = bytes
                connection.phase = .streaming(progress: now)
            case .awaitingHead, .idle, .handling:
                return
            }
        }
    }

    // MARK: - Deadlines and closing

    private func sweep(now: Int64) {
        if let until = acceptPausedUntil, now >= until {
            acceptPausedUntil = nil
            watch(listener, token: Self.listenerToken, events: EPOLLIN.rawValue, operation: EPOLL_CTL_MOD)
        }
        for connection in Array(connections.values) {
            guard let deadline = policy.deadline(of: connection.phase), now >= deadline else { continue }
            switch connection.phase {
            case .awaitingHead:
                counters.headTimeouts.add(1, ordering: .relaxed)
                sendOnce(connection.descriptor, Self.errorBytes(.requestTimeout,
                                                                "the request head took too long"))
            case .idle: counters.idleTimeouts.add(1, ordering: .relaxed)
            case .writing, .streaming: counters.writeTimeouts.add(1, ordering: .relaxed)
            case .handling: break
            }
            closeConnection(connection)
        }
    }

    /// Closes and forgets `connection`. `abortively`: with a reset instead of a FIN, so this side keeps no
    /// TIME_WAIT for it: a crowd that reconnects as fast as it is evicted would otherwise fill the table of
    /// connection ids (ports) that honest clients from the same address need.
    private func closeConnection(_ connection: ServerConnection, abortively: Bool = false) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        if abortively {
            var reset = linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection.descriptor, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
        }
        connection.stream?.close()
        counters.open.subtract(1, ordering: .relaxed)  // before the client can see the close
        epoll_ctl(epoll, EPOLL_CTL_DEL, connection.descriptor, nil)
        close(connection.descriptor)
    }

    private func setInterest(_ connection: ServerConnection, _ events: UInt32) {
        guard connection.interest != events else { return }
        connection.interest = events
        watch(connection.descriptor, token: connection.id, events: events, operation: EPOLL_CTL_MOD)
    }

    private func watch(_ descriptor: Int32, token: UInt64, events: UInt32, operation: Int32) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        epoll_ctl(epoll, operation, descriptor, &event)
    }

    /// One non-blocking send of a short answer to a connection about to close; what the kernel does not take is lost.
    private func sendOnce(_ descriptor: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }

    private static func errorBytes(_ status: HTTPStatus, _ message: String) -> [UInt8] {
        let response = HTTPResponse.error(status, message)
        guard case .bytes(let body) = response.body else { return [] }
        return response.head(keepAlive: false) + body
    }
}
