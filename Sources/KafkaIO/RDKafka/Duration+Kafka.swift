extension Duration {
    /// This duration as librdkafka's `int timeout_ms`, rounded up so a tiny positive timeout never becomes
    /// "don't wait", and clamped to `Int32`.
    var kafkaMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let millis = seconds.multipliedReportingOverflow(by: 1000)
        guard !millis.overflow else { return .max }
        let total = millis.partialValue + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: total)
    }
}
