import KafkaIO
import Testing

/// Commands look at the brokers before starting their clients: an unreachable address is one line, fast.
@Suite("Broker reachability", .serialized) struct BrokerReachabilityTests {
    @Test func aRefusedConnectionIsSaidInOneLineWithinSeconds() throws {
        let started = ContinuousClock.now
        var caught: BrokersUnreachable?
        do {
            // Port 1 on the loopback: nothing listens there, so the connection is refused at once.
            try BrokerReachability.check(KafkaConfiguration(properties: [("bootstrap.servers", "127.0.0.1:1")]))
        } catch let error as BrokersUnreachable {
            caught = error
        }
        let error = try #require(caught)
        #expect(ContinuousClock.now - started < .seconds(8))
        #expect("\(error)" == "cannot reach brokers 127.0.0.1:1: connection refused")
        #expect(!"\(error)".contains("\n") && !"\(error)".contains(".swift"))
        // librdkafka's own lines are kept for --verbose.
        #expect(String(reflecting: error).contains("Connection refused"))
    }

    @Test func aRunningBrokerPasses() throws {
        let cluster = try MockCluster(brokerCount: 1)
        try BrokerReachability.check(cluster.clientConfiguration)
    }

    @Test func aKafkaErrorsDescriptionHasNoSourcePlaceButItsDebugDescriptionHas() {
        let error = KafkaError(code: .transport, message: "Local: Broker transport failure", isRetriable: true)
        #expect(!"\(error)".contains(".swift") && "\(error)".hasPrefix("Local: Broker transport failure"))
        #expect(String(reflecting: error).contains("BrokerReachabilityTests.swift"))
    }
}
