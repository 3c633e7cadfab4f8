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
        var records = simulator.geofenceRecords
        var line: [UInt8] = []
        repeat {
            for record in records {
                line.removeAll(keepingCapacity: true)
                switch record {
                case let .geofence(g):
                    InputRecordEncoder.encode(g, into: &line)
                    workload.geofenceLines.append(line)
                case let .command(c):
                    InputRecordEncoder.encode(c, into: &line)
                    workload.commandLines.append(line)
                    workload.commandPositions.append(workload.fixLines.count)
                case let .fix(f):
                    InputRecordEncoder.encode(f, into: &line)
                    workload.fixLines.append(line)
                }
            }
            records.removeAll(keepingCapacity: true)
        } while simulator.nextStep(into: &records)
        return workload
    }
}
