import CommandSupport
import Console
import ConsoleHTTP
import Domain
import Foundation
import KafkaIO
import Runtime

/// The demo's console: served on loopback at a free port, with a tracking secret made for this run, and a
/// tracking link printed for the first trip it sees, so a newcomer can open both pages.
enum DemoConsole {
    /// The running console; `stop()` before the embedded broker goes.
    struct Running {
        let service: ConsoleService
        func stop() { service.stop() }
    }

    static func start(kafka: KafkaConfiguration, topics: Topics, metrics: RuntimeMetrics) throws -> Running {
        var settings = ConsoleSettings()
        var generator = SystemRandomNumberGenerator()
        settings.trackingSecret = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let consoleTopics = ConsoleTopics(topics)
        let console = try ConsoleService(
            kafka: kafka, topics: consoleTopics, address: ListenAddress(host: "127.0.0.1", port: 0), settings: settings,
            metricsSource: { metrics.render() }, log: { _ in })
        console.start()
        Terminal.error("console: open \(console.url)")
        let secret = settings.trackingSecret ?? []
        let linkThread = Thread {
            for _ in 0..<600 {
                Terminal.sleep(seconds: 0.5)
                let trip = console.store.read { model in
                    model.trips.values.first { $0.isActive && $0.etaMinutes != nil && $0.status == "started" }?.key
                }
                guard let trip else { continue }
                let token = TrackingToken(user: trip.user, trip: trip.trip, expiresAfterSeconds: 3600)
                Terminal.error("console: tracking page of trip \(trip.trip): \(console.url)track/\(token.encoded(secret: secret))")
                return
            }
        }
        linkThread.start()
        return Running(service: console)
    }
}
