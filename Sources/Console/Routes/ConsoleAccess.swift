import Crypto
import HTTPServing

/// Who may see the operations console: anyone who can reach it (loopback, no token), or holders of the
/// bearer token, sent as `Authorization: Bearer`, as the `tripstream_console` cookie, or once as
/// `?access_token=` on the page (which sets the cookie, since EventSource cannot send headers).
public struct ConsoleAccess: Sendable {
    public static let cookieName = "tripstream_console"
    let token: [UInt8]?

    public init(token: String?) { self.token = token.map { Array($0.utf8) } }

    public var required: Bool { token != nil }

    func allows(_ request: HTTPRequest) -> Bool {
        guard let token else { return true }
        var offered: [String] = []
        if let header = request.header("authorization"), header.hasPrefix("Bearer ") {
            offered.append(String(header.dropFirst(7)))
        }
        if let cookie = request.cookie(Self.cookieName) { offered.append(cookie) }
        if let query = request.query["access_token"] { offered.append(query) }
        return offered.contains { HMACSHA256.constantTimeEqual(Array($0.utf8), token) }
    }
}
