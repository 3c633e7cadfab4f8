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

    @usableFromInline
    static func missing(_ field: StaticString) -> DecodeError {
        DecodeError(.missingField, "missing field \"\(field)\"")
    }

    @usableFromInline
    static func wrongType(_ field: StaticString, expected: String, got kind: JSONValueKind) -> DecodeError {
        DecodeError(.wrongType, "\(field) must be \(expected), got \(kind.name)")
    }
}
