import CRdKafka

/// An error reported by librdkafka or by KafkaIO itself.
///
/// The flags mirror librdkafka's `rd_kafka_error_t`: a *fatal* error means the client instance is unusable and must
/// be recreated; a *retriable* one may succeed when the same call is repeated; `isTxnRequiresAbort` means the
/// current transaction must be aborted before a new one can begin.
public struct KafkaError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The librdkafka error code.
    public var code: Code
    /// A human-readable message (librdkafka's error string when it has one).
    public var message: String
    /// The client instance is unusable; recreate it.
    public var isFatal: Bool
    /// Repeating the same call may succeed.
    public var isRetriable: Bool
    /// The current transaction must be aborted.
    public var isTxnRequiresAbort: Bool
    /// Where KafkaIO raised the error, for logs.
    public var file: String
    /// Where KafkaIO raised the error, for logs.
    public var line: UInt

    /// Creates an error.
    public init(
        code: Code,
        message: String,
        isFatal: Bool = false,
        isRetriable: Bool = false,
        isTxnRequiresAbort: Bool = false,
        file: String = #fileID,
        line: UInt = #line
    ) {
        self.code = code
        self.message = message
        self.isFatal = isFatal
        self.isRetriable = isRetriable
        self.isTxnRequiresAbort = isTxnRequiresAbort
        self.file = file
        self.line = line
    }

    /// The message and librdkafka's code, for a person: `Local: Broker transport failure (_TRANSPORT(-195))`.
    public var description: String { "\(message) (\(code))" }

    /// Everything, for `--verbose` and logs: the flags and where KafkaIO raised it.
    public var debugDescription: String {
        var flags: [String] = []
        if isFatal { flags.append("fatal") }
        if isRetriable { flags.append("retriable") }
        if isTxnRequiresAbort { flags.append("abort-transaction") }
        let suffix = flags.isEmpty ? "" : " [\(flags.joined(separator: ","))]"
        return "KafkaError(\(code)): \(message)\(suffix) (\(file):\(line))"
    }
}

// MARK: - Construction from librdkafka

extension KafkaError {
    /// Wraps a plain response code; the message is librdkafka's text for the code unless one is given. Messages
    /// from librdkafka are scrubbed of configured secrets (``SecretScrubber``).
    init(_ err: rd_kafka_resp_err_t, _ message: String? = nil, file: String = #fileID, line: UInt = #line) {
        let code = Code(rawValue: err.rawValue)
        self.init(
            code: code,
            message: SecretScrubber.scrub(message ?? String(cString: rd_kafka_err2str(err))),
            isFatal: err == RD_KAFKA_RESP_ERR__FATAL,
            isRetriable: code.isTransient,
            file: file,
            line: line
        )
    }

    /// Wraps and destroys an `rd_kafka_error_t`.
    ///
    /// - Important: Takes ownership of `error`: it is destroyed before this initializer returns.
    init(consuming error: OpaquePointer, file: String = #fileID, line: UInt = #line) {
        defer { rd_kafka_error_destroy(error) }
        self.init(
            code: Code(rawValue: rd_kafka_error_code(error).rawValue),
            message: SecretScrubber.scrub(String(cString: rd_kafka_error_string(error))),
            isFatal: rd_kafka_error_is_fatal(error) != 0,
            isRetriable: rd_kafka_error_is_retriable(error) != 0,
            isTxnRequiresAbort: rd_kafka_error_txn_requires_abort(error) != 0,
            file: file,
            line: line
        )
    }

    /// Throws if `error` is non-nil (and destroys it); the common shape of librdkafka's newer APIs.
    static func check(_ error: OpaquePointer?, file: String = #fileID, line: UInt = #line) throws(KafkaError) {
        if let error { throw KafkaError(consuming: error, file: file, line: line) }
    }

    /// Throws unless `err` is `NO_ERROR`; the shape of librdkafka's older APIs.
    static func check(_ err: rd_kafka_resp_err_t, file: String = #fileID, line: UInt = #line) throws(KafkaError) {
        if err != RD_KAFKA_RESP_ERR_NO_ERROR { throw KafkaError(err, file: file, line: line) }
    }
}
