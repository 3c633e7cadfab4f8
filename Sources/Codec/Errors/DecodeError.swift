import Domain

/// Why a record could not be decoded: a machine-readable reason (the dead-letter `reason`) and a
/// precise, human-readable detail (field name and what was wrong).
///
/// Thrown with typed throws (`throws(DecodeError)`) so the hot path never boxes an existential.
public struct DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: RejectionReason
    /// E.g. `latitude 91.2 out of range [-90, 90]`, `missing field "createdAt"`.
    public var detail: String

    public init(_ reason: RejectionReason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "\(reason.rawValue): \(detail)" }

    // MARK: - Common details

    /// A Kafka record with a null value where a fix or a trip command was expected: what a producer
    /// sends to delete a key of a compacted topic, which says nothing to a stream of inputs. Named as
    /// such: its dead letter's value is empty, as an empty record's would be.
    public static let nullValue = DecodeError(.notAnObject, "null value (a tombstone), expected a JSON object")

    @usableFromInline
    static func missing(_ field: StaticString) -> DecodeError {
        DecodeError(.missingField, "missing field \"\(field)\"")
    }

    @usableFromInline
    static func wrongType(_ field: StaticString, expected: String, got kind: JSONValueKind) -> DecodeError {
        DecodeError(.wrongType, "\(field) must be \(expected), got \(kind.name)")
    }
}
