import Codec
import Domain
import Runtime
import Simulation

/// Everything a seed publishes, in order: geofences first, then the fleet's fixes and trip commands as
/// its devices send them (offline buffers replayed late, duplicates), with anomalies mixed in: fixes
/// from far-future device clocks, fixes older than the replay horizon, unreadable records, unreadable
/// geofences, and changes to geofences no driver comes near.
struct SimulatedInputs {
    struct Publication {
        var topic: String
        var key: [UInt8]?
        var value: [UInt8]?
    }

    private(set) var publications: [Publication] = []
    /// Publications at the start (the geofence table), before any instance runs.
    private(set) var initial = 0

    init(scenario: SimulationScenario, topics: Topics, wallStart: UnixMillis, random: inout SeededRandom) {
        var simulator = FleetSimulator(settings: scenario.fleet)
        var key: [UInt8] = [], value: [UInt8] = []
        for record in simulator.geofenceRecords {
            InputRecordEncoder.encode(record, key: &key, value: &value)
            publications.append(Publication(topic: topics.geofences, key: key, value: value))
        }
        for index in 0..<scenario.unreadableGeofences {
            publications.append(Publication(topic: topics.geofences, key: Array("broken/g\(index)".utf8),
                                            value: Array("{\"tag\":".utf8)))
        }
        initial = publications.count

        var inputs: [Publication] = []
        var step: [SimulatedRecord] = []
        var lastFix: [String: Fix] = [:]
        while simulator.nextStep(into: &step) {
            for record in step {
                InputRecordEncoder.encode(record, key: &key, value: &value)
                switch record {
                case .geofence: continue
                case .command: inputs.append(Publication(topic: topics.tripCommands, key: key, value: value))
                case let .fix(fix):
                    inputs.append(Publication(topic: topics.locations, key: key, value: value))
                    lastFix[fix.userId] = fix
                }
            }
            step.removeAll()
        }
        let users = lastFix.keys.sorted()
        func insert(_ publication: Publication, afterFraction low: Double) {
            let lower = Int(Double(inputs.count) * low)
            inputs.insert(publication, at: Int.random(in: lower...inputs.count, using: &random))
        }
        func fix(_ fix: Fix) -> Publication {
            var value: [UInt8] = []
            InputRecordEncoder.encode(fix, into: &value)
            return Publication(topic: topics.locations, key: Array(fix.userId.utf8), value: value)
        }
        for _ in 0..<scenario.farFutureFixes where !users.isEmpty {
            // A device whose clock runs two days ahead of the broker's: dead-lettered, whatever the order.
            var ahead = lastFix[users.randomElement(using: &random)!]!
            ahead.createdAt = wallStart + 2 * 86_400_000
            insert(fix(ahead), afterFraction: 0)
        }
        for _ in 0..<scenario.tooLateFixes where !users.isEmpty {
            // Older than the replay horizon behind fixes already published: too late in any order.
            var late = lastFix[users.randomElement(using: &random)!]!
            late.createdAt -= 8 * 3_600_000
            insert(fix(late), afterFraction: 0.9)
        }
        for index in 0..<scenario.unreadableInputs where !users.isEmpty {
            let user = users.randomElement(using: &random)!
            let topic = index % 2 == 0 ? topics.locations : topics.tripCommands
            insert(Publication(topic: topic, key: Array(user.utf8), value: Array("{\"userId\":\"\(user)\",".utf8)),
                   afterFraction: 0)
        }
        for index in 0..<scenario.distantGeofenceChanges {
            // A depot a hundred kilometres away: the table changes, no driver's events do.
            let center = Coordinate(latitude: scenario.fleet.cityCenter.latitude + 1,
                                    longitude: scenario.fleet.cityCenter.longitude)
            let geofence = Geofence(tag: "distant", externalId: "d\(index)", shape: .circle(center: center, radius: 200))
            var value: [UInt8] = []
            InputRecordEncoder.encode(geofence, into: &value)
            let key = Array("distant/d\(index)".utf8)
            insert(Publication(topic: topics.geofences, key: key, value: value), afterFraction: 0)
            if Bool.random(using: &random) { insert(Publication(topic: topics.geofences, key: key, value: nil), afterFraction: 0.5) }
        }
        publications += inputs
    }
}
