import Testing

@testable import HTTPServing

@Suite struct HTTPRequestParserTests {
    private func parse(_ text: String) -> HTTPRequestParser.Outcome { HTTPRequestParser.parse(Array(text.utf8)) }

    @Test func parsesAGetWithQueryAndHeaders() throws {
        let text = "GET /track/a%20b?since=12&x=a+b&y=%C3%A9 HTTP/1.1\r\nHost: h\r\nCookie: a=1; tripstream_console=tok\r\n\r\nrest"
        guard case .request(let request, let consumed) = parse(text) else { Issue.record("no request"); return }
        #expect(request.method == "GET")
        #expect(request.path == "/track/a b")
        #expect(request.query == ["since": "12", "x": "a b", "y": "é"])
        #expect(request.header("HOST") == "h")
        #expect(request.cookie("tripstream_console") == "tok")
        #expect(request.keepAlive)
        #expect(consumed == text.utf8.count - 4)
    }

    @Test func waitsForTheEndOfTheHead() {
        #expect(parse("GET / HTTP/1.1\r\nHost: h\r\n") == .incomplete)
        #expect(parse("") == .incomplete)
    }

    @Test func acceptsBareLineFeeds() {
        guard case .request(let request, _) = parse("GET /x HTTP/1.0\nConnection: keep-alive\n\n") else {
            Issue.record("no request")
            return
        }
        #expect(request.path == "/x")
        #expect(request.keepAlive)
    }

    @Test func keepAliveFollowsVersionAndConnection() {
        guard case .request(let closing, _) = parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n"),
            case .request(let old, _) = parse("GET / HTTP/1.0\r\n\r\n")
        else {
            Issue.record("no request")
            return
        }
        #expect(!closing.keepAlive)
        #expect(!old.keepAlive)
    }

    @Test(arguments: [
        "GET /\r\n\r\n",  // no version
        "get / HTTP/1.1\r\n\r\n",  // lowercase method
        "GET  / HTTP/1.1\r\n\r\n",  // two spaces
        "GET http://x/ HTTP/1.1\r\n\r\n",  // absolute form
        "GET /%zz HTTP/1.1\r\n\r\n",  // broken escape
        "GET /%00 HTTP/1.1\r\n\r\n",  // NUL in the path
        "GET /%ff HTTP/1.1\r\n\r\n",  // not UTF-8
        "GET / HTTP/1.1\r\nNo colon here\r\n\r\n",
        "GET / HTTP/1.1\r\nBad name: x\r\n\r\n",
        "GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
        "GET / FTP/1.1\r\n\r\n",
    ])
    func refusesMalformedHeads(_ text: String) {
        #expect(parse(text) == .failure(.malformed))
    }

    @Test func refusesControlAndNonASCIIBytes() {
        #expect(HTTPRequestParser.parse(Array("GET /\u{1} HTTP/1.1\r\n\r\n".utf8)) == .failure(.malformed))
        #expect(HTTPRequestParser.parse(Array("GET /é HTTP/1.1\r\n\r\n".utf8)) == .failure(.malformed))
    }

    @Test func refusesOtherVersionsAndBodies() {
        #expect(parse("GET / HTTP/2.0\r\n\r\n") == .failure(.unsupportedVersion))
        #expect(parse("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello") == .failure(.bodyNotAccepted))
        #expect(parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") == .failure(.bodyNotAccepted))
        #expect(HTTPParseError.bodyNotAccepted.status.code == 413)
    }

    @Test func limitsTheHead() {
        let long = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: HTTPRequestParser.maximumHeadBytes) + "\r\n\r\n"
        #expect(parse(long) == .failure(.headTooLarge))
        // Too long and still unfinished: refused without waiting for the end.
        #expect(parse(String(long.dropLast(4))) == .failure(.headTooLarge))
        let fields = (0...HTTPRequestParser.maximumFields).map { "X\($0): 1\r\n" }.joined()
        #expect(parse("GET / HTTP/1.1\r\n" + fields + "\r\n") == .failure(.headTooLarge))
        #expect(HTTPParseError.headTooLarge.status.code == 431)
    }

    @Test func listenAddresses() {
        #expect(ListenAddress("127.0.0.1:8080") == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(ListenAddress("localhost:0")?.isLoopback == true)
        #expect(ListenAddress("0.0.0.0:80")?.isLoopback == false)
        #expect(ListenAddress("example.com:80") == nil)
        #expect(ListenAddress("127.0.0.1") == nil)
        #expect(ListenAddress("127.0.0.1:70000") == nil)
        #expect(ListenAddress("1.2.3.999:80") == nil)
    }

    @Test func splitsMetricsURLs() {
        #expect(HTTPGet.split("http://127.0.0.1:9464/metrics")! == ("127.0.0.1", 9464, "/metrics"))
        #expect(HTTPGet.split("http://host")! == ("host", 80, "/"))
        #expect(HTTPGet.split("https://host/") == nil)
        #expect(HTTPGet.split("http://host:x/") == nil)
    }
}
