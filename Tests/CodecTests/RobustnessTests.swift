import Codec
import Domain
import Testing
import Simulation

@Suite("Robustness")
struct RobustnessTests {
    static let seeds: [String] = [
        #"{"userId":"20000380","tripId":"1372636853620000380","createdAt":"2013-07-01T00:00:53Z","latitude":41.140746,"longitude":-8.610291}"#,
        #"{"userId":"u\u00e9","deviceId":"d","createdAt":"2024-02-29T23:59:59.5+01:00","latitude":-90,"longitude":180,"accuracy":4.5,"speed":0,"course":360,"altitude":-12.25,"replayed":true,"metadata":{"a":[1,{"b":null}],"c":"\ud83d\ude00"}}"#,
        #"{"type":"start","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","destinationGeofenceTag":"shift","destinationGeofenceExternalId":"s","destinationCoordinates":[-73.9911,40.7342],"mode":"car","approachingThreshold":5,"scheduledArrivalAt":"2026-05-12T14:45:00.000Z","metadata":{"k":"v"}}}"#,
        #"{"tag":"t","externalId":"e","type":"polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]],"radius":5,"enabled":true,"dwellThreshold":3}"#,
    ]

    static let interesting: [UInt8] =
        Array(#"{}[]",:\-+.eE0123456789tfnu"#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xED, 0xF4, 0xFF]

    /// Random byte mutations of valid records: never a crash, always a value or a DecodeError,
    /// and whatever decodes must agree with the validator.
    @Test func mutationsNeverCrash() {
        var rng = SeededRandom(seed: 0x7e57_7e57)
        var decoded = 0
        var rejected = 0
        for round in 0..<300_000 {
            var bytes = Array(Self.seeds[round % Self.seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: bytes[at] = Self.interesting.randomElement(using: &rng)!
                case 1: bytes[at] = UInt8.random(in: 0...255, using: &rng)
                case 2: bytes.remove(at: at)
                default: bytes.insert(Self.interesting.randomElement(using: &rng)!, at: at)
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            let valid = bytes.withUnsafeBytes { b in (try? JSONReader.validate(b)) != nil }
            let ok: Bool
            switch round % 4 {
            case 0, 1:
                ok = (try? FixDecoder.decode(bytes)) != nil
            case 2:
                ok = (try? TripCommandDecoder.decode(bytes)) != nil
            default:
                ok = (try? GeofenceDecoder.decode(key: nil, value: bytes)) != nil
            }
            if ok {
                decoded += 1
                #expect(valid, "decoded invalid JSON: \(String(decoding: bytes, as: UTF8.self))")
            } else {
                rejected += 1
            }
            do {
                _ = try FixDecoder.decode(bytes)
            } catch {
                #expect(!valid || error.reason != .invalidJSON, "valid JSON called invalid: \(error)")
            }
        }
        #expect(decoded > 1_000 && rejected > 1_000)
    }

    /// Events decode from any mutation of an encoded event without crashing.
    @Test func eventDecoderSurvivesMutations() {
        var rng = SeededRandom(seed: 42)
        let encoded = Fixtures.allEvents.map { event -> [UInt8] in
            var bytes: [UInt8] = []
            EventEncoder.encode(event, actualCreatedAt: 0, into: &bytes)
            return bytes
        }
        for round in 0..<50_000 {
            var bytes = encoded[round % encoded.count]
            let at = Int.random(in: 0..<bytes.count, using: &rng)
            bytes[at] = Self.interesting.randomElement(using: &rng)!
            _ = try? EventDecoder.decode(bytes)
            _ = try? DeadLetterDecoder.decode(bytes)
        }
    }
}
