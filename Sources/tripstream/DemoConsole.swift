import Console
import HTTPServing
import Domain
import Foundation
import KafkaIO
import Runtime

/// The demo's console: served on loopback at a free port, and a tracking link printed for a trip still
/// under way, so a newcomer can open both pages. The tracking secret is `--secret-file`'s, so
/// `tripstream tracking-link` can mint more links; without it, one made for this run.
enum DemoConsole {
    /// The running console; `stop()` before the embedded broker goes.
    struct Running {
        let service: ConsoleService
        func stop() { service.stop() }
    }

    /// - Parameter secretFile: the file the secret came from, named in the hint to mint more links.
    static func start(kafka: KafkaConfiguration, topics: Topics, metrics: RuntimeMetrics, secret: [UInt8]?,
                      secretFile: String?, tiles: MapTiles?) throws -> Running
    {
        var settings = ConsoleSettings()
        settings.tiles = tiles
        var generator = SystemRandomNumberGenerator()
        let secret = secret ?? (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        settings.trackingSecret = secret
        let console = try ConsoleService(
            kafka: kafka, topics: ConsoleTopics(topics), address: ListenAddress(host: "127.0.0.1", port: 0),
            settings: settings, metricsSource: { metrics.render() }, log: { _ in })
        console.start()
        Terminal.error("console: open \(console.url)")
        let linkThread = Thread {
            guard let trip = awaitTripUnderWay(console) else { return }
            let token = TrackingToken(user: trip.user, trip: trip.trip, expiresAfterSeconds: 3600)
            Terminal.error("console: tracking page of trip \(trip.trip), under way: \(console.url)track/\(token.encoded(secret: secret))")
            if let secretFile {
                Terminal.error("console: more links: tripstream tracking-link --secret-file \(secretFile) "
                    + "--console \(console.url) --user USER --trip TRIP")
            } else {
                Terminal.error("console: to mint more links with `tripstream tracking-link`, start the demo with --secret-file FILE")
            }
        }
        linkThread.start()
        return Running(service: console)
    }

    /// The trip with the most time left among those under way, once the console has seen a few (or for a
    /// few seconds): a link to a trip about to end would show an arrival, not a driver on the way.
    private static func awaitTripUnderWay(_ console: ConsoleService) -> TripKey? {
        let started = WallClock.monotonic()
        while WallClock.monotonic() - started < 300 && !ShutdownSignal.isRequested {
            Terminal.sleep(seconds: 0.5)
            let (candidates, best) = console.store.read { model in
                let underWay = model.trips.values.filter { $0.status == "started" && $0.etaMinutes != nil }
                return (underWay.count, underWay.max { ($0.etaMinutes ?? 0, $0.key.trip) < ($1.etaMinutes ?? 0, $1.key.trip) }?.key)
            }
            if let best, candidates >= 10 || WallClock.monotonic() - started >= 10 { return best }
        }
        return nil
    }
}
