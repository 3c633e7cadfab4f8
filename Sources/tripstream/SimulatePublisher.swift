import Codec
import CommandLineKit
import Domain
import KafkaIO
import Runtime
import Simulation

/// Publishes a simulated fleet to a broker, keyed as real producers key: userId for fixes and
/// commands, `tag/externalId` for geofences.
enum SimulatePublisher {
    static func publish(_ settings: SimulationSettings, parsed: ParsedArguments) throws {
        let topics = try TopicNames.topics(parsed)
        let base = try KafkaSettings.configuration(parsed)
        try KafkaSettings.checkReachable(base)
        let configuration = base.lingering(milliseconds: 5)
        let check = try PublishedRecordsCheck(configuration: base,
                                              topics: [topics.locations, topics.tripCommands, topics.geofences])
        let producer = try KafkaProducer(configuration: configuration)
        let rate = try parsed.double("rate")
        let counts = try publish(settings, producer: producer, topics: topics, rate: rate) { _ in true }
        Terminal.output("published \(counts.geofences) geofences, \(counts.commands) trip commands, \(counts.fixes) fixes")
        try check.warnIfDropped(published: [topics.locations: counts.fixes, topics.tripCommands: counts.commands,
                                            topics.geofences: counts.geofences]) { Terminal.error($0) }
    }

    /// - Parameter keepGoing: called after each time step; return false to stop early.
    @discardableResult
    static func publish(_ settings: SimulationSettings, producer: KafkaProducer, topics: Topics, rate: Double,
                        keepGoing: (Int) -> Bool) throws -> (geofences: Int, commands: Int, fixes: Int)
    {
        var simulator = FleetSimulator(settings: settings)
        return try publish(&simulator, geofences: true, producer: producer, topics: topics, rate: rate,
                           keepGoing: keepGoing)
    }

    /// Publishes `fleet` step by step (its geofences first, unless they went out already).
    /// - Parameter keepGoing: called after each time step with the fixes sent so far; return false to stop early.
    static func publish<Fleet: LiveFleet>(_ fleet: inout Fleet, geofences: Bool, producer: KafkaProducer,
                                          topics: Topics, rate: Double, keepGoing: (Int) -> Bool) throws
        -> (geofences: Int, commands: Int, fixes: Int)
    {
        var counts = (geofences: 0, commands: 0, fixes: 0)
        var key: [UInt8] = [], value: [UInt8] = []
        var records = geofences ? fleet.geofenceRecords : []
        let started = WallClock.monotonic()
        repeat {
            for record in records {
                InputRecordEncoder.encode(record, key: &key, value: &value)
                let topic: String
                switch record {
                case .geofence:
                    topic = topics.geofences
                    counts.geofences += 1
                case .command:
                    topic = topics.tripCommands
                    counts.commands += 1
                case .fix:
                    topic = topics.locations
                    counts.fixes += 1
                }
                try producer.produce(topic: topic, key: key, value: value)
            }
            records.removeAll(keepingCapacity: true)
            if rate > 0 {
                // Pace to the requested rate: sleep until the fixes sent so far are due.
                let due = Double(counts.fixes) / rate
                let ahead = due - (WallClock.monotonic() - started)
                if ahead > 0 { Terminal.sleep(seconds: ahead) }
            }
            if !keepGoing(counts.fixes) { break }
        } while fleet.nextStep(into: &records)
        let report = try producer.flush(timeout: .seconds(60))
        guard report.allDelivered else {
            throw CommandFailure("\(report.failed) records were not delivered (\(report.firstError.map { "\($0)" } ?? "?"))")
        }
        return counts
    }
}
