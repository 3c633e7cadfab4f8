import CRdKafka
import Synchronization

/// A quick look at the brokers before a command starts its clients, whose own calls wait out long timeouts
/// (30 s and more) when nothing answers.
public enum BrokerReachability {
    /// Returns once a broker answered a metadata request; throws ``BrokersUnreachable`` as soon as librdkafka
    /// reports every broker down (a refused connection, an unknown host), or after `timeout` without an answer.
    /// librdkafka's lines are kept in the error, not printed.
    public static func check(_ configuration: KafkaConfiguration, timeout: Duration = .seconds(8)) throws {
        let servers = configuration.bootstrapServers ?? "?"
        let attempt = Attempt()
        let client = try RDKafkaClient(type: RD_KAFKA_PRODUCER, configuration: configuration,
                                       opaque: Unmanaged.passUnretained(attempt).toOpaque()) { conf in
            rd_kafka_conf_set_log_cb(conf, attemptLogCallback)
            rd_kafka_conf_set_error_cb(conf, attemptErrorCallback)
        }
        let started = ContinuousClock.now
        while ContinuousClock.now - started < timeout {
            var metadata: UnsafePointer<rd_kafka_metadata>?
            let err = rd_kafka_metadata(client.handle, 0, nil, &metadata, 250)
            if let metadata { rd_kafka_metadata_destroy(metadata) }
            if err == RD_KAFKA_RESP_ERR_NO_ERROR { return withExtendedLifetime(attempt) {} }
            rd_kafka_poll(client.handle, 0)  // serves the error callback
            if attempt.allBrokersDown { break }
        }
        let state = attempt.snapshot
        let reason = state.lastFailure.map(Self.reason) ?? "no answer within \(timeout.components.seconds) s"
        withExtendedLifetime(attempt) {}
        throw BrokersUnreachable(servers: servers, reason: reason, detail: state.lines)
    }

    /// "connection refused" from librdkafka's "localhost:1/bootstrap: Connect to ipv4#127.0.0.1:1 failed:
    /// Connection refused (after 0ms in state CONNECT)": the last clause, without the timing.
    static func reason(_ message: String) -> String {
        var text = Substring(message)
        let characters = Array(text)
        let timing = Array(" (after ")
        if let start = (0..<characters.count).first(where: { characters[$0...].starts(with: timing) }) {
            text = text.prefix(start)
        }
        if let colon = text.indices.last(where: { text[$0] == ":" && text.index(after: $0) < text.endIndex
            && text[text.index(after: $0)] == " " })
        {
            text = text[text.index(colon, offsetBy: 2)...]
        }
        guard let first = text.first else { return message }
        return first.lowercased() + text.dropFirst()
    }

    /// What librdkafka said during one check; written from its threads.
    final class Attempt: Sendable {
        struct State {
            var lines: [String] = []
            var lastFailure: String?
            var allBrokersDown = false
        }

        private let state = Mutex(State())

        var snapshot: State { state.withLock { $0 } }
        var allBrokersDown: Bool { state.withLock { $0.allBrokersDown } }

        func logged(_ line: String, failure: String?, allDown: Bool = false) {
            state.withLock { state in
                if state.lines.count < 50 { state.lines.append(line) }
                if let failure { state.lastFailure = failure }
                if allDown { state.allBrokersDown = true }
            }
        }
    }
}

private func attempt(_ client: OpaquePointer?) -> BrokerReachability.Attempt? {
    guard let client, let opaque = rd_kafka_opaque(client) else { return nil }
    return Unmanaged<BrokerReachability.Attempt>.fromOpaque(opaque).takeUnretainedValue()
}

private func attemptLogCallback(
    _ client: OpaquePointer?, _ level: Int32, _ facility: UnsafePointer<CChar>?, _ message: UnsafePointer<CChar>?
) {
    let text = SecretScrubber.scrub(message.map { String(cString: $0) } ?? "")
    let facilityText = facility.map { String(cString: $0) } ?? "-"
    attempt(client)?.logged("\(facilityText): \(text)", failure: facilityText == "FAIL" ? text : nil)
}

private func attemptErrorCallback(
    _ client: OpaquePointer?, _ err: Int32, _ reason: UnsafePointer<CChar>?, _ opaque: UnsafeMutableRawPointer?
) {
    guard let opaque else { return }
    let attempt = Unmanaged<BrokerReachability.Attempt>.fromOpaque(opaque).takeUnretainedValue()
    let text = SecretScrubber.scrub(reason.map { String(cString: $0) } ?? "")
    let allDown = err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN.rawValue
    let failure = err == RD_KAFKA_RESP_ERR__TRANSPORT.rawValue || err == RD_KAFKA_RESP_ERR__RESOLVE.rawValue
        || err == RD_KAFKA_RESP_ERR__SSL.rawValue || err == RD_KAFKA_RESP_ERR__AUTHENTICATION.rawValue
    attempt.logged("ERROR: \(text)", failure: failure ? text : nil, allDown: allDown)
}
