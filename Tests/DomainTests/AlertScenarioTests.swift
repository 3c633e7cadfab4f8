import Domain
import Testing

/// Issue 39's scenario with known truth: a courier on a trip to store g1 of a chain passes three other
/// stores of the chain (tag "store") on the way: drives through one, waits 40 s at a red light inside
/// another, stops 3 minutes at a third; it arrives, and its device goes quiet. Another courier goes dark
/// for 15 minutes mid-trip.
@Suite struct AlertScenarioTests {
    let o = World.center
    var stores: [Geofence] {
        [
            World.circle("store", "g1", at: north(5_000)),  // the destination
            World.circle("store", "drive-through", at: north(1_000)),
            World.circle("store", "red-light", at: north(2_000)),
            World.circle("store", "wrong-stop", at: north(3_000)),
            World.circle("depot", "other-tag-stop", at: north(4_000)),
        ]
    }

    func north(_ meters: Double) -> Coordinate { World.offset(o, north: meters, east: 0) }

    /// A fix every 10 s at 10 m/s from `from` to `to` meters north, then `wait` seconds standing at `to`.
    func drive(_ user: String, from: Double, to: Double, startingAt start: inout Int64, wait: Int64 = 0) -> [Fix] {
        var fixes: [Fix] = []
        var at = from
        while at < to {
            at = min(at + 100, to)
            start += 10
            fixes.append(World.fix(user, at: start, north(at)))
        }
        for _ in stride(from: 10, through: wait, by: 10) {
            start += 10
            fixes.append(World.fix(user, at: start, north(to)))
        }
        return fixes
    }

    @Test func onlyARealStopAtAnotherStoreIsAWrongDestinationAndSilenceAfterArrivalIsNoSignalLost() {
        var h = Harness(stores)
        var t: Int64 = 0
        h.send(World.fix("courier", at: t, o))
        h.send(World.start("courier", at: t))
        var route = drive("courier", from: 0, to: 2_000, startingAt: &t, wait: 40)  // through one, a light in another
        route += drive("courier", from: 2_000, to: 3_000, startingAt: &t)
        let reachedThirdStore = t
        route += drive("courier", from: 3_000, to: 3_000, startingAt: &t, wait: 180)  // a 3-minute stop
        route += drive("courier", from: 3_000, to: 4_000, startingAt: &t, wait: 180)  // a stop in another tag's
        route += drive("courier", from: 4_000, to: 5_000, startingAt: &t, wait: 30)  // arrives
        for fix in route { h.send(fix) }
        let arrivedAt = t
        // The passenger is out; nobody completes the trip. Another user moves stream time on by an hour.
        for minute in stride(from: Int64(1), through: 60, by: 1) { h.send(World.fix("other", at: arrivedAt + minute * 60, o)) }

        let wrong = h.events(.arrivedAtWrongTripDestination)
        #expect(wrong.map { $0.geofence?.externalId } == ["wrong-stop"])
        // Confirmed once the stop lasted the stop duration (2 min) from its first standing fix, not at the entry.
        #expect(wrong.first?.createdAt == World.t0 + (reachedThirdStore + 10) * 1000 + FoldSettings().stopDuration)
        #expect(wrong.first?.trip?.status.isOnTheWay == true)
        #expect(h.events(.enteredGeofence).filter { $0.geofence?.tag == "store" }.count == 4)  // every store entered
        #expect(h.events(.arrivedAtTripDestination).count == 1)
        #expect(h.events(.tripSignalLost).isEmpty)
    }

    @Test func goingDarkMidTripIsExactlyOneSignalLost() {
        var h = Harness(stores)
        var t: Int64 = 0
        h.send(World.fix("courier", at: t, o))
        h.send(World.start("courier", at: t))
        for fix in drive("courier", from: 0, to: 1_500, startingAt: &t) { h.send(fix) }
        // 15 minutes without a fix, while the fleet goes on.
        let dark = t
        for minute in stride(from: Int64(1), through: 15, by: 1) { h.send(World.fix("other", at: dark + minute * 60, o)) }
        t = dark + 15 * 60
        for fix in drive("courier", from: 1_500, to: 2_500, startingAt: &t) { h.send(fix) }
        let lost = h.events(.tripSignalLost)
        #expect(lost.count == 1)
        #expect(lost.first?.createdAt == World.t0 + (dark + 600) * 1000)
        #expect(h.events(.tripSignalRestored).count == 1)
        #expect(h.events(.arrivedAtWrongTripDestination).isEmpty)
    }
}
