import Codec
import Domain
import Foundation
import KafkaIO
import Runtime
import Simulation

/// Publishes the demo's fleet: its geofences before the service starts, then its fixes and trip
/// commands on a thread of their own, one time step per `stepMilliseconds / speedup` of real time.
enum DemoPublisher {
    /// Publishes `records` to the geofences topic and waits until the broker has them all.
    /// - Returns: how many.
    static func publishGeofences(_ records: [SimulatedRecord], configuration: KafkaConfiguration, topics: Topics) throws
        -> Int
    {
        let producer = try KafkaProducer(configuration: configuration)
        var key: [UInt8] = [], value: [UInt8] = []
        for record in records {
            InputRecordEncoder.encode(record, key: &key, value: &value)
            try producer.produce(topic: topics.geofences, key: key, value: value)
        }
        let report = try producer.flush(timeout: .seconds(60))
        guard report.allDelivered else {
            throw CommandFailure("\(report.failed) geofences were not delivered (\(report.firstError.map { "\($0)" } ?? "?"))")
        }
        return records.count
    }

    /// Starts the thread that publishes `fleet`'s steps until it ends or `done` is set, then says what it
    /// published (counted, and the simulated time that really passed).
    static func start<Fleet: LiveFleet>(_ fleet: Fleet, speedup: Double, configuration: KafkaConfiguration,
                                        topics: Topics, done: DemoFlag)
    {
        let thread = Thread {
            do {
                // Scoped like the service's clients.
                var fleet = fleet
                let producer = try KafkaProducer(configuration: configuration)
                let interval = Double(fleet.stepMilliseconds) / 1000 / speedup
                var last = WallClock.monotonic()
                let counts = try SimulatePublisher.publish(&fleet, geofences: false, producer: producer, topics: topics,
                                                           rate: 0)
                { _ in
                    let next = last + interval
                    let now = WallClock.monotonic()
                    if next > now { Terminal.sleep(seconds: next - now) }
                    last = max(next, now)
                    return !done.isSet && !ShutdownSignal.isRequested
                }
                done.published(fixes: counts.fixes, commands: counts.commands)
                let minutes = Double(fleet.currentTime - fleet.startTime) / 60_000
                Terminal.error("fleet: published \(counts.fixes + counts.commands) inputs, \(Int(minutes.rounded())) simulated minutes")
            } catch {
                Terminal.error("fleet failed: \(error)")
                done.fail("the fleet failed: \(error)")
            }
            done.publisherStopped()
        }
        thread.start()
    }
}
