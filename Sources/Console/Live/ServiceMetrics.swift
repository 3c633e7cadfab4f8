import Foundation
import Synchronization

/// The service's lag and events/s over the last minutes, from its Prometheus text (`/metrics`), for the
/// console's small chart. `source` returns the text, or nil when the service did not answer.
public final class ServiceMetrics: Sendable {
    public struct Sample: Sendable, Equatable {
        /// Wall clock, ms since 1970.
        public var time: Int64
        /// Records behind, summed over partitions.
        public var lag: Double
        public var eventsPerSecond: Double
    }

    public static let keptSamples = 150
    private let samples = Mutex<[Sample]>([])
    private let previous = Mutex<(time: Int64, events: Double)?>(nil)
    private let source: @Sendable () -> String?

    public init(source: @escaping @Sendable () -> String?) { self.source = source }

    public var history: [Sample] { samples.withLock { $0 } }

    /// Sums every sample of metric `name` in Prometheus text `text`; nil when there is none.
    public static func sum(_ name: String, in text: String) -> Double? {
        var total: Double?
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let rest = line.dropFirst(name.count)
            guard rest.first == " " || rest.first == "{" else { continue }
            guard let value = line.split(separator: " ").last.flatMap({ Double($0) }), value.isFinite else { continue }
            total = (total ?? 0) + value
        }
        return total
    }

    /// Scrapes once and records a sample; the events rate needs two scrapes.
    public func poll(now: Int64) {
        guard let text = source() else { return }
        let lag = Self.sum("tripstream_consumer_lag", in: text) ?? 0
        let events = Self.sum("tripstream_events_produced_total", in: text) ?? 0
        let rate: Double = previous.withLock { last in
            defer { last = (now, events) }
            guard let last, now > last.time else { return 0 }
            return max(events - last.events, 0) * 1000 / Double(now - last.time)
        }
        samples.withLock { samples in
            samples.append(Sample(time: now, lag: lag, eventsPerSecond: rate))
            if samples.count > Self.keptSamples { samples.removeFirst(samples.count - Self.keptSamples) }
        }
    }

    func json() -> [UInt8] {
        var json = JSONText()
        json.raw("[")
        for (index, sample) in history.enumerated() {
            if index > 0 { json.raw(",") }
            json.raw("[")
            json.int(sample.time)
            json.raw(",")
            json.number(sample.lag, decimals: 0)
            json.raw(",")
            json.number(sample.eventsPerSecond, decimals: 1)
            json.raw("]")
        }
        json.raw("]")
        return json.bytes
    }
}
