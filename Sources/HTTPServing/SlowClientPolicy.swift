/// The rules that keep a crowd of slow clients from locking others out: when a connection has waited too long,
/// and which connection gives way to a new one when all ``ServerLimits/maximumConnections`` are open. Pure (times
/// in monotonic milliseconds), so tests drive it directly.
///
/// A client that sends its request at once needs its slot for milliseconds; one that trickles its head holds it
/// until the head deadline. So the connection that gives way is the one idle longest (its client can open
/// another), else the one whose head has been arriving longest: a newcomer always gets in, and an attacker's
/// crowd evicts itself. Connections being answered or streamed to are never chosen.
struct SlowClientPolicy: Sendable {
    let limits: ServerLimits

    /// When a connection in `phase` times out; nil while a handler answers (the handler's own time).
    func deadline(of phase: ConnectionPhase) -> Int64? {
        switch phase {
        case .awaitingHead(let since): since + Self.milliseconds(limits.headDeadlineSeconds)
        case .idle(let since): since + Self.milliseconds(limits.idleTimeoutSeconds)
        case .handling: nil
        case .writing(let progress): progress + Self.milliseconds(limits.writeTimeoutSeconds)
        case .streaming(let progress): progress.map { $0 + Self.milliseconds(limits.writeTimeoutSeconds) }
        }
    }

    /// The connection to close so that a new one can be served, or nil when every open one is being answered.
    func victim<Connections: Sequence>(among connections: Connections) -> UInt64?
    where Connections.Element == (id: UInt64, phase: ConnectionPhase) {
        // Ids grow with each accept: within the same millisecond, the one accepted first is the older.
        func older(_ candidate: (since: Int64, id: UInt64), than current: (since: Int64, id: UInt64)?) -> Bool {
            current.map { candidate < $0 } ?? true
        }
        var oldestIdle: (since: Int64, id: UInt64)?
        var oldestHead: (since: Int64, id: UInt64)?
        for (id, phase) in connections {
            switch phase {
            case .idle(let since) where older((since, id), than: oldestIdle): oldestIdle = (since, id)
            case .awaitingHead(let since) where older((since, id), than: oldestHead): oldestHead = (since, id)
            default: continue
            }
        }
        return oldestIdle?.id ?? oldestHead?.id
    }

    static func milliseconds(_ seconds: Double) -> Int64 { Int64((seconds * 1000).rounded()) }
}
