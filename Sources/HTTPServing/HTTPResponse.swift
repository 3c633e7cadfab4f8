/// What a route answers: a status, header fields and a body, either bytes or a stream written from a thread of
/// its own (Server-Sent Events).
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        /// Called once, on a thread of its own, with a writer for the open connection; returns when the stream
        /// ends (the writer's `write` returned false, or the producer is done). The connection closes afterwards.
        case stream(@Sendable (StreamWriter) -> Void)
    }

    public var status: HTTPStatus
    public var headers: [(name: String, value: String)]
    public var body: Body

    public init(status: HTTPStatus, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A text body with its content type.
    public static func text(_ status: HTTPStatus, _ text: String, type: String = "text/plain; charset=utf-8")
        -> HTTPResponse
    {
        HTTPResponse(status: status, headers: [("Content-Type", type)], body: .bytes(Array(text.utf8)))
    }

    /// A JSON body (already encoded) that no cache keeps.
    public static func json(_ json: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                     body: .bytes(json))
    }

    /// An error as a short text naming the problem.
    public static func error(_ status: HTTPStatus, _ message: String) -> HTTPResponse {
        .text(status, message + "\n")
    }

    /// The head bytes: status line and fields, with `Content-Length` for a byte body.
    func head(keepAlive: Bool) -> [UInt8] {
        var text = "HTTP/1.1 \(status)\r\n"
        for field in headers { text += "\(field.name): \(field.value)\r\n" }
        text += "X-Content-Type-Options: nosniff\r\n"
        switch body {
        case .bytes(let bytes):
            text += "Content-Length: \(bytes.count)\r\n"
            text += keepAlive ? "Connection: keep-alive\r\n" : "Connection: close\r\n"
        case .stream:
            text += "Connection: close\r\n"
        }
        return Array((text + "\r\n").utf8)
    }
}

/// Writes to a streaming response's connection. `write` returns at once while the client keeps up; it returns
/// false once the client is gone, or has left ``ServerLimits/streamBufferBytes`` untaken for
/// ``ServerLimits/writeTimeoutSeconds``.
public protocol StreamWriter: Sendable {
    func write(_ bytes: [UInt8]) -> Bool
}
