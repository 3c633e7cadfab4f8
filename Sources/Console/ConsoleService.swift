import HTTPServing
import Foundation
import KafkaIO
import Synchronization

/// The console process's parts, wired: the feed reading the topics into the store, a tick that publishes the
/// store's changes to the live pages every ``tickMilliseconds``, the service-metrics scrape, and the server.
public final class ConsoleService: Sendable {
    public static let tickMilliseconds = 250
    public let store: FleetStore
    public let hub: LiveHub
    public let metrics: ServiceMetrics?
    private let server: HTTPServer
    private let feed: Mutex<ConsoleFeed?>
    private let stopped = Atomic<Bool>(false)
    private let feedFinished = DispatchSemaphore(value: 0)
    private let log: @Sendable (String) -> Void

    public init(kafka: KafkaConfiguration, topics: ConsoleTopics, address: ListenAddress, settings: ConsoleSettings,
                limits: ServerLimits = ServerLimits(), metricsSource: (@Sendable () -> String?)?,
                log: @escaping @Sendable (String) -> Void) throws
    {
        let store = FleetStore(topics: topics)
        let hub = LiveHub()
        let metrics = metricsSource.map { ServiceMetrics(source: $0) }
        let reader = PlaybackReader(kafka: kafka, topic: topics.locations)
        let playback = PlaybackSource { user, from, to in try reader.read(user: user, from: from, to: to) }
        // The routes report the server's counters, and the server calls the routes: tied through a box.
        let serverBox = Mutex<HTTPServer?>(nil)
        let routes = ConsoleRoutes(
            store: store, hub: hub, metrics: metrics, settings: settings, playback: playback,
            now: { Int64(Date().timeIntervalSince1970 * 1000) },
            extraMetrics: {
                serverBox.withLock { $0 }?.counters.prometheusText(prefix: "tripstream_console") ?? ""
            })
        let server = try HTTPServer(address: address, limits: limits, isPriority: ConsoleRoutes.isPublic) {
            routes.respond($0)
        }
        serverBox.withLock { $0 = server }
        self.server = server
        self.feed = Mutex(try ConsoleFeed(kafka: kafka, store: store, log: log))
        self.store = store
        self.hub = hub
        self.metrics = metrics
        self.log = log
    }

    /// Where the console listens, with the port it got.
    public var url: String { "http://\(server.address)/" }

    /// Starts the feed, tick, metrics and server threads.
    public func start() {
        let feedThread = Thread { [self] in
            defer { feedFinished.signal() }
            guard let feed = feed.withLock({ value -> ConsoleFeed? in defer { value = nil }; return value }) else { return }
            do {
                try feed.run(shouldStop: { self.stopped.load(ordering: .relaxed) })
            } catch {
                log("console: reading the topics failed: \(error)")
            }
        }
        feedThread.name = "console-feed"
        feedThread.start()
        let tickThread = Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                usleep(UInt32(Self.tickMilliseconds * 1000))
                let changes = store.takeChanges()
                hub.publish(FleetJSON.delta(changes), sequence: changes.sequence)
            }
        }
        tickThread.name = "console-tick"
        tickThread.start()
        if let metrics {
            let metricsThread = Thread { [self] in
                while !stopped.load(ordering: .relaxed) {
                    metrics.poll(now: Int64(Date().timeIntervalSince1970 * 1000))
                    sleep(2)
                }
            }
            metricsThread.name = "console-metrics"
            metricsThread.start()
        }
        server.start()
    }

    /// Stops serving and reading; returns once the feed closed its client (or after 5 s), so the brokers
    /// can go away after it.
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        server.stop()
        hub.stop()
        _ = feedFinished.wait(timeout: .now() + 5)
    }
}
