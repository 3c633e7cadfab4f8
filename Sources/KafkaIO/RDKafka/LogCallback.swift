import CRdKafka

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// librdkafka's `log_cb`: one line per message on stderr, prefixed `kafka:`.
///
/// Called on librdkafka's internal threads, so it stays thin: format one line and issue one `write(2)` (atomic for
/// short lines, so lines from different threads never interleave). librdkafka never logs sensitive property values.
func kafkaLogCallback(
    _ client: OpaquePointer?,
    _ level: Int32,
    _ facility: UnsafePointer<CChar>?,
    _ message: UnsafePointer<CChar>?
) {
    let name = client.map { String(cString: rd_kafka_name($0)) } ?? "-"
    let facilityText = facility.map { String(cString: $0) } ?? "-"
    let text = message.map { String(cString: $0) } ?? ""
    let line = "kafka: \(syslogLevelName(level)) \(name) \(facilityText): \(text)\n"
    var bytes = Array(line.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
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
