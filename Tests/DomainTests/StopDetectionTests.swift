import Domain
import Testing

/// Radar's stop detection: a geofence with `stopDetection` is entered only once the user has been
/// slower than `stopSpeed` for `stopDuration` inside it; a drive-by enters only plain geofences.
@Suite struct StopDetectionTests {
    let o = World.center

    static let stopping = Geofence(tag: "dock", externalId: "d1", shape: .circle(center: World.center, radius: 100),
                                   stopDetection: true)
    static let plain = World.circle("store", "g1", radius: 100)
    /// The mechanism at a one-minute stop (the service's default is 2 minutes).
    static var oneMinute: FoldSettings {
        var settings = FoldSettings()
        settings.stopDuration = 60_000
        return settings
    }

    func fix(at seconds: Int64, north: Double, speed: Float = .nan, replayed: Bool = false) -> Fix {
        Fix(userId: "u1", createdAt: World.t0 + seconds * 1000, position: World.offset(o, north: north, east: 0),
            accuracy: 10, speed: speed, replayed: replayed)
    }

    @Test func aDriveByEntersOnlyThePlainGeofence() {
        var h = Harness([Self.stopping, Self.plain])
        for step in 0...30 {  // 10 m/s, straight through both
            h.send(fix(at: Int64(step) * 3, north: -450 + Double(step) * 30))
        }
        #expect(h.events(.enteredGeofence).map { $0.geofence?.externalId } == ["g1"])
    }

    @Test func stoppingInsideEntersOnceStoppedForTheDuration() {
        var h = Harness([Self.stopping], settings: Self.oneMinute)
        for seconds in stride(from: Int64(0), through: 90, by: 10) { h.send(fix(at: seconds, north: 20, speed: 0.2)) }
        let entered = h.events(.enteredGeofence)
        #expect(entered.count == 1 && entered.first?.createdAt == World.t0 + 60_000)
    }

    @Test func withoutSpeedItIsDerivedFromConsecutiveFixes() {
        var h = Harness([Self.stopping], settings: Self.oneMinute)
        // The first fix has no speed and no predecessor: unknown. From the second on, 0 m/s.
        for seconds in stride(from: Int64(0), through: 90, by: 10) { h.send(fix(at: seconds, north: 20)) }
        #expect(h.events(.enteredGeofence).first?.createdAt == World.t0 + 70_000)
    }

    @Test func parkedJitterWithinTheAccuracyIsNoMovement() {
        var h = Harness([Self.stopping], settings: Self.oneMinute)
        // 15 m back and forth every 5 s (3 m/s as raw distance), with 10 m accuracy fixes.
        for step in Int64(0)...16 { h.send(fix(at: step * 5, north: step % 2 == 0 ? 20 : 35)) }
        #expect(h.events(.enteredGeofence).first?.createdAt == World.t0 + 65_000)
    }

    @Test func aFastFixRestartsTheStop() {
        var settings = FoldSettings()
        settings.stopDuration = 30_000
        settings.stopSpeed = 1
        var h = Harness([Self.stopping], settings: settings)
        h.send(fix(at: 0, north: 20, speed: 0.5))
        h.send(fix(at: 20, north: 20, speed: 3))  // moving again
        h.send(fix(at: 40, north: 20, speed: 0.5))
        h.send(fix(at: 60, north: 20, speed: 0.5))
        #expect(h.published.isEmpty)
        h.send(fix(at: 70, north: 20, speed: 0.5))
        #expect(h.events(.enteredGeofence).first?.createdAt == World.t0 + 70_000)
    }

    @Test func aLateFastFixRetractsAnEntryThatWasNoStop() {
        var h = Harness([Self.stopping], settings: Self.oneMinute)
        for seconds: Int64 in [0, 10, 20, 40, 50, 60, 70, 80, 90] { h.send(fix(at: seconds, north: 20, speed: 0.2)) }
        let entry = h.events(.enteredGeofence)
        #expect(entry.count == 1 && entry.first?.createdAt == World.t0 + 60_000)
        // The offline buffer: at 30 s the user was still driving; stopped from 40 s, so not for 60 s by 90 s.
        h.send(fix(at: 30, north: 20, speed: 8, replayed: true))
        #expect(h.published.last?.id == entry.first?.id && h.published.last?.revision == .retracted)
        #expect(h.upserted().isEmpty)
    }
}
