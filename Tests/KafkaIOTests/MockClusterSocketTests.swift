import Glibc
import KafkaIO
import Testing

/// The dev broker answers like Kafka's brokers do, with Nagle's algorithm off: otherwise a second
/// response in flight waits for the client's delayed ACK, about 40 ms per transactional flush.
@Suite struct MockClusterSocketTests {
    @Test(.timeLimit(.minutes(5)))
    func connectionsTheMockAcceptsHaveNagleDisabled() throws {
        let cluster = try MockCluster(brokerCount: 1)
        let port = try #require(cluster.bootstrapServers.split(separator: ",").first?.split(separator: ":").last
            .flatMap { UInt16($0) })

        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(client >= 0)
        defer { close(client) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(connected == 0)
        #expect(Self.noDelay(client) == 0, "the test's own socket keeps the default, so the check can tell")

        // The mock's thread accepts asynchronously: wait for the server side of the connection.
        var accepted: [Int32] = []
        for _ in 0..<200 where accepted.isEmpty {
            accepted = Self.descriptors().filter { $0 != client && Self.isConnectedSocket($0, localPort: port) }
            if accepted.isEmpty { usleep(10_000) }
        }
        #expect(!accepted.isEmpty, "the mock accepted the connection")
        for descriptor in accepted { #expect(Self.noDelay(descriptor) == 1) }
        withExtendedLifetime(cluster) {}
    }

    static func descriptors() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        var result: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let descriptor = Int32(name) { result.append(descriptor) }
        }
        return result
    }

    static func isConnectedSocket(_ descriptor: Int32, localPort: UInt16) -> Bool {
        var listening: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 0 else {
            return false
        }
        var address = sockaddr_in()
        var addressLength = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &addressLength) }
        }
        return named == 0 && address.sin_family == sa_family_t(AF_INET) && UInt16(bigEndian: address.sin_port) == localPort
    }

    static func noDelay(_ descriptor: Int32) -> Int32 {
        var value: Int32 = -1
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &length)
        return value
    }
}
