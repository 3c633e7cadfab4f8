/// Why a request head was refused; each maps to the 4xx/5xx status the client gets.
public enum HTTPParseError: Error, Equatable, Sendable {
    /// The request line or a header field is not HTTP/1.x syntax.
    case malformed
    /// The head is longer than ``HTTPRequestParser/maximumHeadBytes`` or has too many fields.
    case headTooLarge
    /// Not HTTP/1.0 or HTTP/1.1.
    case unsupportedVersion
    /// The request announces a body (`Content-Length` > 0 or chunked); the console takes none.
    case bodyNotAccepted

    public var status: HTTPStatus {
        switch self {
        case .malformed: .badRequest
        case .headTooLarge: .headerFieldsTooLarge
        case .unsupportedVersion: .httpVersionNotSupported
        case .bodyNotAccepted: .payloadTooLarge
        }
    }
}
