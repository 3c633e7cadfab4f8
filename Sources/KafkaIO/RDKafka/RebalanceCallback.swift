import CRdKafka

/// librdkafka's `rebalance_cb`.
///
/// librdkafka calls it from inside `rd_kafka_consumer_poll` / `rd_kafka_consumer_close` on the application's thread.
/// Registering it hands assignment to us, so it must apply the change right here (incremental under the cooperative
/// protocol, full under eager), then record it for the Swift loop.
func kafkaRebalanceCallback(
    _ client: OpaquePointer?,
    _ err: rd_kafka_resp_err_t,
    _ partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
    _ opaque: UnsafeMutableRawPointer?
) {
    guard let client, let opaque else { return }
    let context = Unmanaged<ConsumerContext>.fromOpaque(opaque).takeUnretainedValue()
    // NULL while the consumer is not (or no longer) in a group, e.g. when closing.
    let cooperative = rd_kafka_rebalance_protocol(client).map { String(cString: $0) } == "COOPERATIVE"
    let list = TopicPartitionList.partitions(of: partitions).sorted()
    var failure: KafkaError?

    switch err {
    case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
        if cooperative {
            failure = rd_kafka_incremental_assign(client, partitions).map { KafkaError(consuming: $0) }
        } else {
            failure = errorUnlessOK(rd_kafka_assign(client, partitions))
        }
        context.record(.assigned(list))
    case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
        // Ask before unassigning: the flag describes the assignment being given up.
        let lost = rd_kafka_assignment_lost(client) != 0
        if !lost, context.holdsRevocations {
            // The application commits what it folded from them first, then releases them
            // (`KafkaConsumer.release`): until then the group waits, and nobody else resumes them.
        } else if cooperative {
            failure = rd_kafka_incremental_unassign(client, partitions).map { KafkaError(consuming: $0) }
        } else {
            failure = errorUnlessOK(rd_kafka_assign(client, nil))
        }
        context.record(lost ? .lost(list) : .revoked(list))
    default:
        // Any other code is a failed rebalance; librdkafka's guidance is to drop the whole assignment.
        _ = rd_kafka_assign(client, nil)
        failure = KafkaError(err)
    }
    if let failure { context.record(.failed(failure)) }
}

private func errorUnlessOK(_ err: rd_kafka_resp_err_t) -> KafkaError? {
    err == RD_KAFKA_RESP_ERR_NO_ERROR ? nil : KafkaError(err)
}
