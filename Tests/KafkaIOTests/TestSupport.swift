import KafkaIO

/// Helpers shared by the KafkaIO tests, which all run against an in-process ``MockCluster``.
enum TestSupport {
    /// Consumer settings that make the mock's group rebalances take about a second instead of ten.
    static func consumerConfiguration(_ cluster: MockCluster, group: String) -> KafkaConfiguration {
        cluster.clientConfiguration.merging(
            KafkaConfiguration(properties: [
                ("group.id", group),
                ("session.timeout.ms", "6000"),
                ("heartbeat.interval.ms", "500"),
                ("topic.metadata.refresh.interval.ms", "1000"),
            ]))
    }

    /// Polls until `done` holds for the records collected so far or `timeout` passes.
    static func pollUntil(
        timeout: Duration = .seconds(60),  // generous: group joins on the mock are slow on a loaded machine
        _ poll: () throws -> [ConsumedRecord],
        done: ([ConsumedRecord]) throws -> Bool
    ) throws -> [ConsumedRecord] {
        let deadline = ContinuousClock.now + timeout
        var records: [ConsumedRecord] = []
        while try !done(records), ContinuousClock.now < deadline {
            records += try poll()
        }
        return records
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func text(_ bytes: [UInt8]?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }
}
