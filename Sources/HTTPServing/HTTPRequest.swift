/// One parsed HTTP/1.x request head. Bodies are not read: every route of the console is a GET.
public struct HTTPRequest: Sendable, Equatable {
    public var method: String
    /// The decoded path, without the query (`/track/abc`).
    public var path: String
    /// Query parameters, percent-decoded; the last of a repeated name wins.
    public var query: [String: String]
    /// Header fields with lowercased names, in arrival order.
    public var headers: [(name: String, value: String)]
    /// `HTTP/1.1` keeps the connection open unless the client says `Connection: close`.
    public var keepAlive: Bool

    public init(method: String, path: String, query: [String: String] = [:],
                headers: [(name: String, value: String)] = [], keepAlive: Bool = false)
    {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.keepAlive = keepAlive
    }

    /// The first header field named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name == lowered }?.value
    }

    /// The value of cookie `name` from the `Cookie` headers.
    public func cookie(_ name: String) -> String? {
        for field in headers where field.name == "cookie" {
            for pair in field.value.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingSpaces() == name { return String(parts[1].trimmingSpaces()) }
            }
        }
        return nil
    }

    public static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.path == b.path && a.query == b.query && a.keepAlive == b.keepAlive
            && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
