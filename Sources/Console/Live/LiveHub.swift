import HTTPServing
import Foundation

/// Fans the read model's deltas out to the pages' Server-Sent Event streams.
///
/// The producer never waits for a page: ``publish(_:sequence:)`` only appends to each page's queue. A page
/// whose queue passes ``maximumQueuedBytes`` (it reads slower than the fleet changes) has its queue dropped and
/// gets one `reset` event instead, upon which it loads a fresh snapshot: its updates are coalesced into that
/// snapshot, and the consumer of the topics never stalls. Deltas of the last ``retainedDeltas`` ticks are kept, so
/// a page that reconnects with `Last-Event-ID` (or `?since=`) gets what it missed, or a `reset` if too much.
public final class LiveHub: @unchecked Sendable {
    // Safe: every field is guarded by `condition`.
    public static let maximumQueuedBytes = 16 << 20
    public static let retainedDeltas = 40
    public let maximumStreams: Int
    /// Seconds between comment lines on an idle stream, so a dead connection is noticed.
    public static let heartbeatSeconds = 15.0

    private let condition = NSCondition()
    private var recent: [(sequence: Int64, message: [UInt8])] = []
    private var streams: [ObjectIdentifier: Subscriber] = [:]
    private var stopped = false
    /// Pages told to reload a snapshot (too slow, or missed too much).
    public private(set) var resetsSent = 0

    public init(maximumStreams: Int = 32) { self.maximumStreams = maximumStreams }

    /// One page's queue. `@unchecked Sendable`: its fields are only touched under the hub's `condition`.
    private final class Subscriber: @unchecked Sendable {
        var queue: [(sequence: Int64, message: [UInt8])] = []
        var queuedBytes = 0
        var needsReset = false
    }

    /// Streams open now.
    public var streamCount: Int { condition.lock(); defer { condition.unlock() }; return streams.count }
    public var resets: Int { condition.lock(); defer { condition.unlock() }; return resetsSent }

    public func publish(_ message: [UInt8], sequence: Int64) {
        condition.lock()
        recent.append((sequence, message))
        if recent.count > Self.retainedDeltas { recent.removeFirst(recent.count - Self.retainedDeltas) }
        for subscriber in streams.values where !subscriber.needsReset {
            subscriber.queue.append((sequence, message))
            subscriber.queuedBytes += message.count
            if subscriber.queuedBytes > Self.maximumQueuedBytes {
                subscriber.queue = []
                subscriber.queuedBytes = 0
                subscriber.needsReset = true
            }
        }
        condition.broadcast()
        condition.unlock()
    }

    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Nil when ``maximumStreams`` are open; else a body that serves one stream on the connection's thread.
    public func stream(after lastSequence: Int64?) -> (@Sendable (StreamWriter) -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        guard streams.count < maximumStreams, !stopped else { return nil }
        let subscriber = Subscriber()
        // Deltas are numbered without gaps and one is published every tick, so `recent` is contiguous.
        if let lastSequence, let first = recent.first?.sequence, let last = recent.last?.sequence {
            if lastSequence >= first - 1 && lastSequence <= last + 1 {
                subscriber.queue = recent.filter { $0.sequence > lastSequence }
            } else {
                subscriber.needsReset = true  // missed too much, or numbered by another process: start over
            }
        }
        let id = ObjectIdentifier(subscriber)
        streams[id] = subscriber
        return { [self] writer in
            serve(subscriber, writer: writer)
            condition.lock()
            streams[id] = nil
            condition.unlock()
        }
    }

    private func serve(_ subscriber: Subscriber, writer: StreamWriter) {
        // Tells EventSource to wait 1 s before reconnecting.
        guard writer.write(Array("retry: 1000\n\n".utf8)) else { return }
        while true {
            condition.lock()
            let deadline = Date(timeIntervalSinceNow: Self.heartbeatSeconds)
            while subscriber.queue.isEmpty, !subscriber.needsReset, !stopped {
                if !condition.wait(until: deadline) { break }
            }
            let batch = subscriber.queue
            let reset = subscriber.needsReset
            subscriber.queue = []
            subscriber.queuedBytes = 0
            if reset { resetsSent += 1 }
            let done = stopped
            condition.unlock()
            if done { return }
            if reset {
                _ = writer.write(Array("event: reset\ndata: {}\n\n".utf8))
                return  // the page reloads a snapshot and opens a new stream
            }
            if batch.isEmpty {
                guard writer.write(Array(": keep-alive\n\n".utf8)) else { return }
                continue
            }
            var bytes: [UInt8] = []
            for delta in batch {
                bytes += Array("id: \(delta.sequence)\nevent: delta\ndata: ".utf8)
                bytes += delta.message
                bytes += [10, 10]
            }
            guard writer.write(bytes) else { return }
        }
    }
}
