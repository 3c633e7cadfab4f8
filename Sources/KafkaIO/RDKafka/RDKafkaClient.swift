import CRdKafka

/// Owns one librdkafka client instance (`rd_kafka_t`) and destroys it in `deinit`.
///
/// Objects that depend on the instance (topic handles, the mock cluster, queues) hold a strong reference to their
/// `RDKafkaClient`, so Swift's release order guarantees they are destroyed first.
///
/// - Important: `handle` must never escape the object that owns this client.
final class RDKafkaClient {
    /// The `rd_kafka_t *`.
    let handle: OpaquePointer

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - type: Producer or consumer.
    ///   - configuration: Properties passed to `rd_kafka_conf_set`, in order.
    ///   - opaque: The instance opaque handed to callbacks (`rd_kafka_conf_set_opaque`); the caller keeps it alive
    ///     for the lifetime of this client.
    ///   - configure: Registers callbacks on the `rd_kafka_conf_t *` before the instance is created.
    /// - Throws: ``KafkaError`` with `invalidArgument` for a rejected property (named; a secret's value withheld),
    ///   or the reason `rd_kafka_new` failed (with every secret value scrubbed, see ``SecretScrubber``).
    init(
        type: rd_kafka_type_t,
        configuration: KafkaConfiguration,
        opaque: UnsafeMutableRawPointer? = nil,
        configure: (OpaquePointer) -> Void = { _ in }
    ) throws(KafkaError) {
        // Before anything can fail or log: librdkafka's messages about this client are scrubbed of its secrets.
        SecretScrubber.register(configuration)
        let conf = rd_kafka_conf_new()!
        var errstr = [CChar](repeating: 0, count: 512)
        for (key, value) in configuration.properties {
            let result = rd_kafka_conf_set(conf, key, value, &errstr, errstr.count)
            guard result == RD_KAFKA_CONF_OK else {
                rd_kafka_conf_destroy(conf)
                // librdkafka's message may quote the value, so secrets get a generic message instead.
                let detail =
                    if result == RD_KAFKA_CONF_UNKNOWN {
                        "no such librdkafka property"
                    } else if KafkaConfiguration.isSecret(key: key) {
                        "invalid value"
                    } else {
                        SecretScrubber.scrub(Self.string(errstr))
                    }
                throw KafkaError(code: .invalidArgument, message: "property \(key): \(detail)")
            }
        }
        rd_kafka_conf_set_log_cb(conf, kafkaLogCallback)
        if let opaque { rd_kafka_conf_set_opaque(conf, opaque) }
        configure(conf)
        // rd_kafka_new takes ownership of conf only on success; on failure it is still ours to free.
        guard let handle = rd_kafka_new(type, conf, &errstr, errstr.count) else {
            rd_kafka_conf_destroy(conf)
            throw KafkaError(
                code: .invalidArgument, message: "rd_kafka_new: \(SecretScrubber.scrub(Self.string(errstr)))")
        }
        self.handle = handle
    }

    /// Set when destroying the handle would trip a librdkafka assertion (see `ConsumerClient.deinit`):
    /// the handle is then deliberately leaked.
    var leaksHandle = false

    deinit {
        if !leaksHandle { rd_kafka_destroy(handle) }
    }

    /// The client's name (`rdkafka#producer-1`…), for logs.
    var name: String { String(cString: rd_kafka_name(handle)) }

    /// The global fatal error, if one was raised (idempotent/transactional producers, static group members).
    func fatalError() -> KafkaError? {
        var errstr = [CChar](repeating: 0, count: 512)
        let err = rd_kafka_fatal_error(handle, &errstr, errstr.count)
        guard err != RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
        var error = KafkaError(err, Self.string(errstr))
        error.isFatal = true
        return error
    }

    /// The value this instance holds for a property (`rd_kafka_conf_get` on its configuration), or `nil` for an
    /// unknown key or an unset string. May be a secret: never log it.
    func property(_ key: String) -> String? {
        var size = 0
        guard rd_kafka_conf_get(rd_kafka_conf(handle), key, nil, &size) == RD_KAFKA_CONF_OK else { return nil }
        var buffer = [CChar](repeating: 0, count: max(size, 1))
        guard rd_kafka_conf_get(rd_kafka_conf(handle), key, &buffer, &size) == RD_KAFKA_CONF_OK else { return nil }
        return Self.string(buffer)
    }

    static func string(_ buffer: [CChar]) -> String {
        buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
