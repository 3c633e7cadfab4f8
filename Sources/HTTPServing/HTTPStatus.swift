/// The statuses the console answers with.
public struct HTTPStatus: Sendable, Equatable, CustomStringConvertible {
    public var code: Int
    public var reason: String

    public init(_ code: Int, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code) \(reason)" }

    public static let ok = HTTPStatus(200, "OK")
    public static let found = HTTPStatus(302, "Found")
    public static let badRequest = HTTPStatus(400, "Bad Request")
    public static let unauthorized = HTTPStatus(401, "Unauthorized")
    public static let forbidden = HTTPStatus(403, "Forbidden")
    public static let notFound = HTTPStatus(404, "Not Found")
    public static let methodNotAllowed = HTTPStatus(405, "Method Not Allowed")
    public static let requestTimeout = HTTPStatus(408, "Request Timeout")
    public static let gone = HTTPStatus(410, "Gone")
    public static let payloadTooLarge = HTTPStatus(413, "Payload Too Large")
    public static let uriTooLong = HTTPStatus(414, "URI Too Long")
    public static let headerFieldsTooLarge = HTTPStatus(431, "Request Header Fields Too Large")
    public static let serviceUnavailable = HTTPStatus(503, "Service Unavailable")
    public static let httpVersionNotSupported = HTTPStatus(505, "HTTP Version Not Supported")
}
