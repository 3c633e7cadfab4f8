import Domain
import Runtime
import Simulation

/// What one seed simulates, drawn from it: the fleet, the instances and their settings, and which
/// faults are likely (swarm testing: each seed favours some kinds of fault and leaves others out, so
/// rare combinations come up across seeds).
struct SimulationScenario {
    var partitions: Int32
    var instances: Int
    /// Instances running from the start.
    var startingInstances: Int
    var fleet: SimulationSettings
    /// Anomalies added to the fleet's inputs.
    var farFutureFixes: Int
    var tooLateFixes: Int
    var unreadableInputs: Int
    var unreadableGeofences: Int
    var distantGeofenceChanges: Int
    /// Scheduler steps with faults; then faults stop and the instances must commit everything.
    var faultSteps: Int
    /// Chance per step of a fault, and each kind's weight (0: never in this seed).
    var faultRate: Double
    var faultWeights: [SimulationFault.Kind: Double]
    var options: (RuntimeOptions) -> RuntimeOptions

    init(random: inout SeededRandom) {
        partitions = Int32.random(in: 1...4, using: &random)
        instances = Int.random(in: 1...4, using: &random)
        startingInstances = Int.random(in: 1...instances, using: &random)
        var fleet = SimulationSettings()
        fleet.users = Int.random(in: 3...8, using: &random)
        fleet.geofences = 20
        fleet.duration = Int64.random(in: 90...240, using: &random)
        fleet.offlineChance = Double.random(in: 0...0.08, using: &random)
        fleet.offlineLength = 2...8
        fleet.duplicateChance = Double.random(in: 0...0.08, using: &random)
        fleet.tripShare = 0.5
        fleet.cityRadius = 2_000
        fleet.seed = random.next()
        self.fleet = fleet
        farFutureFixes = Int.random(in: 0...2, using: &random)
        tooLateFixes = Int.random(in: 0...2, using: &random)
        unreadableInputs = Int.random(in: 0...2, using: &random)
        unreadableGeofences = Int.random(in: 0...1, using: &random)
        distantGeofenceChanges = Int.random(in: 0...2, using: &random)
        faultSteps = Int.random(in: 1_500...4_000, using: &random)
        faultRate = Double.random(in: 0.002...0.02, using: &random)
        var weights: [SimulationFault.Kind: Double] = [:]
        for kind in SimulationFault.Kind.allCases {
            weights[kind] = Double.random(in: 0..<1, using: &random) < 0.65 ? Double.random(in: 0.2...1, using: &random) : 0
        }
        faultWeights = weights
        let commitInterval = Int64.random(in: 10...200, using: &random)
        let maxPollRecords = Int.random(in: 5...80, using: &random)
        let maxPendingInputs = Int.random(in: 20...400, using: &random)
        let snapshotInterval = Int64.random(in: 100...3_000, using: &random)
        let mergeWait = Int64.random(in: 100...2_000, using: &random)
        let early = Bool.random(using: &random)
        let partitions = partitions
        options = { base in
            var options = base
            options.commitInterval = commitInterval
            options.maxPollRecords = maxPollRecords
            options.maxPendingInputs = maxPendingInputs
            options.snapshotInterval = snapshotInterval
            options.mergeWait = mergeWait
            options.sendOutputsEarly = early
            options.idleAdvance = 0  // the reference fold has no wall clock
            options.partitions = partitions
            options.threads = 1
            options.capturesCommittedState = true
            return options
        }
    }

    var description: String {
        "\(partitions) partitions, \(instances) instances (\(startingInstances) at first), \(fleet.users) users over "
            + "\(fleet.duration) s, fault rate \(faultRate), kinds "
            + SimulationFault.Kind.allCases.filter { faultWeights[$0]! > 0 }.map(\.rawValue).joined(separator: ", ")
    }
}
