import Codec
import Domain
import Simulation

/// The fleet a benchmark runs on, encoded once as NDJSON lines held in memory.
struct BenchWorkload {
    var geofences: [Geofence]
    var geofenceLines: [[UInt8]]
    var commandLines: [[UInt8]]
    var fixLines: [[UInt8]]
    /// Arrival order of commands among fixes: index into `fixLines` before which each command arrives.
    var commandPositions: [Int]

    var fixBytes: Int { fixLines.reduce(0) { $0 + $1.count + 1 } }

    static func generate(_ settings: SimulationSettings) -> BenchWorkload {
        var simulator = FleetSimulator(settings: settings)
        var workload = BenchWorkload(geofences: simulator.geofences, geofenceLines: [], commandLines: [], fixLines: [],
                                     commandPositions: [])
        simulator.encodeRecords { record, line in
            switch record {
            case .geofence: workload.geofenceLines.append(line)
            case .command:
                workload.commandLines.append(line)
                workload.commandPositions.append(workload.fixLines.count)
            case .fix: workload.fixLines.append(line)
            }
        }
        return workload
    }
}
