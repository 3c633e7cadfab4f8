/// A JSON value kept as its exact source text (UTF-8), e.g. a `metadata` object.
///
/// The fold never looks inside metadata; it only carries it from inputs to events. Keeping the
/// bytes avoids building dictionaries on the hot path and re-emits exactly what the user sent.
/// A final class so that events and states share one copy by reference.
public final class RawJSON: Hashable, Sendable {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    public convenience init(_ text: String) { self.init(bytes: Array(text.utf8)) }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public static func == (lhs: RawJSON, rhs: RawJSON) -> Bool {
        lhs === rhs || lhs.bytes == rhs.bytes
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}
