import CRdKafka

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// librdkafka's `log_cb`: one line per message on stderr, prefixed `kafka:`.
///
/// Called on librdkafka's internal threads, so it stays thin: format one line and issue one `write(2)` (atomic for
/// short lines, so lines from different threads never interleave). librdkafka redacts sensitive properties in its
/// configuration dumps but may quote a value in other messages, so every line is scrubbed of the secret values
/// given to any client (``SecretScrubber``).
func kafkaLogCallback(
    _ client: OpaquePointer?,
    _ level: Int32,
    _ facility: UnsafePointer<CChar>?,
    _ message: UnsafePointer<CChar>?
) {
    let name = client.map { String(cString: rd_kafka_name($0)) } ?? "-"
    let facilityText = facility.map { String(cString: $0) } ?? "-"
    let text = message.map { String(cString: $0) } ?? ""
    var bytes = Array(kafkaLogLine(name: name, level: level, facility: facilityText, message: text).utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

/// One log line, newline-terminated and scrubbed of secrets.
func kafkaLogLine(name: String, level: Int32, facility: String, message: String) -> String {
    "kafka: \(syslogLevelName(level)) \(name) \(facility): \(SecretScrubber.scrub(message))\n"
}

/// Syslog severity names, as librdkafka uses syslog levels.
private func syslogLevelName(_ level: Int32) -> String {
    switch level {
    case ...2: "CRIT"
    case 3: "ERROR"
    case 4: "WARN"
    case 5: "NOTICE"
    case 6: "INFO"
    default: "DEBUG"
    }
}
