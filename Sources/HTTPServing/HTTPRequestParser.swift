/// Parses an HTTP/1.x request head from the bytes received so far.
///
/// Pure: no sockets, so every malformed input can be tested. Limits keep a hostile client from making the
/// server buffer without end: a head is at most ``maximumHeadBytes`` and ``maximumFields`` fields.
public enum HTTPRequestParser {
    public static let maximumHeadBytes = 16 * 1024
    public static let maximumFields = 64

    public enum Outcome: Equatable, Sendable {
        /// More bytes are needed (the blank line that ends the head has not arrived).
        case incomplete
        /// A request, and how many bytes of `buffer` its head took.
        case request(HTTPRequest, consumed: Int)
        case failure(HTTPParseError)
    }

    public static func parse(_ buffer: [UInt8]) -> Outcome {
        guard let end = headEnd(buffer) else {
            return buffer.count > maximumHeadBytes ? .failure(.headTooLarge) : .incomplete
        }
        guard end.head <= maximumHeadBytes else { return .failure(.headTooLarge) }
        switch parseHead(buffer[0..<end.head]) {
        case .success(let request): return .request(request, consumed: end.consumed)
        case .failure(let error): return .failure(error)
        }
    }

    /// Where the head ends: the first CRLFCRLF (or bare LFLF, which some clients send).
    private static func headEnd(_ buffer: [UInt8]) -> (head: Int, consumed: Int)? {
        var index = 0
        let limit = min(buffer.count, maximumHeadBytes + 4)
        while index < limit {
            if buffer[index] == 10 {
                if index + 1 < buffer.count, buffer[index + 1] == 10 { return (index, index + 2) }
                if index + 2 < buffer.count, buffer[index + 1] == 13, buffer[index + 2] == 10 {
                    return (index, index + 3)
                }
            }
            index += 1
        }
        return nil
    }

    private static func parseHead(_ bytes: ArraySlice<UInt8>) -> Result<HTTPRequest, HTTPParseError> {
        // Only visible ASCII, spaces, tabs and line ends belong in a head.
        guard bytes.allSatisfy({ $0 == 9 || $0 == 10 || $0 == 13 || (32...126).contains($0) }) else {
            return .failure(.malformed)
        }
        // Split on bytes: as Characters, "\r\n" is one grapheme and would never equal "\n".
        var lines: [Substring] = bytes.split(separator: 10, omittingEmptySubsequences: false).map { line in
            Substring(String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self))
        }
        while lines.first?.isEmpty == true { lines.removeFirst() }  // RFC 9112: ignore leading empty lines
        guard let requestLine = lines.first else { return .failure(.malformed) }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy({ $0.isLetter && $0.isUppercase }) else {
            return .failure(.malformed)
        }
        let version = parts[2]
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return version.hasPrefix("HTTP/") ? .failure(.unsupportedVersion) : .failure(.malformed)
        }
        guard lines.count - 1 <= maximumFields else { return .failure(.headTooLarge) }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return .failure(.malformed) }
            let name = line[..<colon]
            guard !name.isEmpty, name.allSatisfy({ $0 != " " && $0 != "\t" }) else { return .failure(.malformed) }
            headers.append((name.lowercased(), String(line[line.index(after: colon)...].trimmingSpaces())))
        }
        if let length = headers.first(where: { $0.name == "content-length" })?.value {
            guard let count = Int(length), count >= 0 else { return .failure(.malformed) }
            if count > 0 { return .failure(.bodyNotAccepted) }
        }
        if headers.contains(where: { $0.name == "transfer-encoding" }) { return .failure(.bodyNotAccepted) }
        guard let target = parseTarget(parts[1]) else { return .failure(.malformed) }
        let connection = headers.first { $0.name == "connection" }?.value.lowercased()
        let keepAlive = version == "HTTP/1.1" ? connection != "close" : connection == "keep-alive"
        return .success(HTTPRequest(method: String(parts[0]), path: target.path, query: target.query,
                                    headers: headers, keepAlive: keepAlive))
    }

    /// An origin-form target (`/path?query`), percent-decoded; nil when it is not one or does not decode.
    static func parseTarget(_ target: Substring) -> (path: String, query: [String: String])? {
        guard target.first == "/" else { return nil }
        let pieces = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard let path = percentDecoded(pieces[0], plusIsSpace: false), !path.contains("\0") else { return nil }
        var query: [String: String] = [:]
        if pieces.count == 2 {
            for pair in pieces[1].split(separator: "&") {
                let nameValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = percentDecoded(nameValue[0], plusIsSpace: true),
                    let value = percentDecoded(nameValue.count == 2 ? nameValue[1] : "", plusIsSpace: true)
                else { return nil }
                query[name] = value
            }
        }
        return (path, query)
    }

    /// `%XX` escapes decoded to UTF-8; nil for a broken escape or bytes that are not UTF-8.
    static func percentDecoded(_ text: Substring, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            } else if plusIsSpace && byte == UInt8(ascii: "+") {
                bytes.append(32)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }
}
