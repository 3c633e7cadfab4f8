import CRdKafka
import Synchronization

/// Delivery-report tallies, updated by the producer's `dr_msg_cb` and taken by `flush`.
///
/// The callback reaches this object through `rd_kafka_opaque` (an unretained `Unmanaged` pointer, kept alive by the
/// producer that owns both it and the client). It is `Sendable` because its only state is behind a `Mutex`.
final class DeliveryContext: Sendable {
    let report = Mutex(DeliveryReport())

    func take() -> DeliveryReport {
        report.withLock { report in
            defer { report = DeliveryReport() }
            return report
        }
    }
}

/// librdkafka's `dr_msg_cb`: counts one delivery outcome.
///
/// librdkafka calls it from `rd_kafka_poll` / `rd_kafka_flush` on the application's thread; it only bumps counters.
func kafkaDeliveryCallback(
    _ client: OpaquePointer?,
    _ message: UnsafePointer<rd_kafka_message_t>?,
    _ opaque: UnsafeMutableRawPointer?
) {
    guard let message, let opaque else { return }
    let context = Unmanaged<DeliveryContext>.fromOpaque(opaque).takeUnretainedValue()
    let err = message.pointee.err
    context.report.withLock { report in
        if err == RD_KAFKA_RESP_ERR_NO_ERROR {
            report.delivered += 1
        } else {
            report.failed += 1
            if report.firstError == nil { report.firstError = KafkaError.Code(err) }
        }
    }
}
