import Codec
import Domain
import Simulation
import Testing

@Suite struct FleetSimulatorTests {
    func settings() -> SimulationSettings {
        var s = SimulationSettings()
        s.users = 200
        s.geofences = 100
        s.duration = 900
        s.offlineChance = 0.01
        s.duplicateChance = 0.01
        s.seed = 7
        return s
    }

    func records(_ settings: SimulationSettings) -> [SimulatedRecord] {
        var simulator = FleetSimulator(settings: settings)
        var records = simulator.geofenceRecords
        while simulator.nextStep(into: &records) {}
        return records
    }

    func encoded(_ records: [SimulatedRecord]) -> [[UInt8]] {
        var key: [UInt8] = [], value: [UInt8] = []
        return records.map { record in
            InputRecordEncoder.encode(record, key: &key, value: &value)
            return key + [0] + value
        }
    }

    @Test func sameSeedSameRecords() {
        let a = encoded(records(settings()))
        let b = encoded(records(settings()))
        #expect(a == b)
        var other = settings()
        other.seed = 8
        #expect(encoded(records(other)) != a)
    }

    /// Without liveliness, a seed gives the records it gave before liveliness existed (the digest of
    /// that version's records): benchmarks and regression seeds keep their meaning.
    @Test func withoutLivelinessASeedGivesTheRecordsItAlwaysGave() {
        let all = encoded(records(settings()))
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a over the records, each followed by a line feed
        for record in all {
            for byte in record + [10] { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        #expect(all.count == 37_591)
        #expect(hash == 0x8f4e_d109_da9f_3f94)
    }

    @Test func producesTripsOfflineReplaysAndDuplicates() {
        let all = records(settings())
        var starts = 0, completes = 0, replayed = 0, fixes = 0
        var lateFixes = 0
        var newest: [String: UnixMillis] = [:]
        var seen = Set<[UInt8]>()
        var duplicates = 0
        var value: [UInt8] = []
        for record in all {
            switch record {
            case let .command(c):
                if c.kind == .start { starts += 1 }
                if c.kind == .complete { completes += 1 }
            case let .fix(f):
                fixes += 1
                if f.replayed { replayed += 1 }
                if let n = newest[f.userId], f.createdAt < n { lateFixes += 1 }
                newest[f.userId] = max(newest[f.userId] ?? .min, f.createdAt)
                value.removeAll()
                InputRecordEncoder.encode(f, into: &value)
                if !seen.insert(value).inserted { duplicates += 1 }
            case .geofence: break
            }
        }
        #expect(starts >= 60)
        #expect(completes > 0)
        #expect(replayed > 0 && lateFixes > 0)
        #expect(duplicates > 0)
        #expect(fixes > 200 * 150)
    }

    @Test func everyEncodedRecordDecodesBackToTheSameValue() throws {
        for record in records(settings()).prefix(20_000) {
            var value: [UInt8] = []
            switch record {
            case let .fix(f):
                InputRecordEncoder.encode(f, into: &value)
                #expect(try FixDecoder.decode(value) == f)
            case let .command(c):
                InputRecordEncoder.encode(c, into: &value)
                #expect(try TripCommandDecoder.decode(value) == c)
            case let .geofence(g):
                InputRecordEncoder.encode(g, into: &value)
                let key = Array("\(g.tag)/\(g.externalId)".utf8)
                guard case let .upsert(decoded) = try GeofenceDecoder.decode(key: key, value: value) else {
                    Issue.record("geofence decoded as a delete")
                    continue
                }
                #expect(decoded.id == g.id && decoded.shape == g.shape && decoded.metadata == g.metadata)
                #expect(decoded.dwellThreshold == g.dwellThreshold && decoded.description == g.description)
            }
        }
    }
}
