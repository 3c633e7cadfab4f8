import Codec

extension FleetSimulator {
    /// Every geofence, then the records of every step left, each handed to `body` with its NDJSON
    /// line (without the newline), as `simulate --out` writes them and the benchmarks read them.
    public mutating func encodeRecords(_ body: (SimulatedRecord, [UInt8]) throws -> Void) rethrows {
        var records = geofenceRecords
        var line: [UInt8] = []
        repeat {
            for record in records {
                line.removeAll(keepingCapacity: true)
                switch record {
                case let .geofence(g): InputRecordEncoder.encode(g, into: &line)
                case let .command(c): InputRecordEncoder.encode(c, into: &line)
                case let .fix(f): InputRecordEncoder.encode(f, into: &line)
                }
                try body(record, line)
            }
            records.removeAll(keepingCapacity: true)
        } while nextStep(into: &records)
    }
}
