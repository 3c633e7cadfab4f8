import Domain

/// An event read back from its JSON, with the processing time that is not part of `Event`.
public struct DecodedEvent: Sendable {
    public var event: Event
    /// `actualCreatedAt`; nil if the record has none (Radar's own payloads).
    public var actualCreatedAt: UnixMillis?

    public init(event: Event, actualCreatedAt: UnixMillis?) {
        self.event = event
        self.actualCreatedAt = actualCreatedAt
    }
}
