import Synchronization

/// What the console refused, for its `/metrics`: every 4xx a route answered, and tracking links refused.
public final class ConsoleCounters: Sendable {
    private let clientErrors = Atomic<Int>(0)
    private let trackingRefusals = Atomic<Int>(0)
    public init() {}

    public var clientErrorResponses: Int { clientErrors.load(ordering: .relaxed) }
    public var trackingLinksRefused: Int { trackingRefusals.load(ordering: .relaxed) }

    func countResponse(_ status: Int) {
        if (400..<500).contains(status) { clientErrors.add(1, ordering: .relaxed) }
    }

    func countTrackingRefusal() { trackingRefusals.add(1, ordering: .relaxed) }
}
