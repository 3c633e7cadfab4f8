@testable import Domain
import Testing

/// `TimelineStore`: timelines in segments that own their memory, reached by address. A store keeps
/// each timeline where it was appended, across segments, and a copy of a store keeps its timelines
/// while the other changes (copy on write, per segment).
@Suite(.timeLimit(.minutes(5))) struct TimelineStoreTests {
    static func store(users: Int) -> TimelineStore {
        var store = TimelineStore()
        for user in 0..<users { store.append(UserTimeline(userId: "user-\(user)")) }
        return store
    }

    @Test func timelinesStayAtTheirSlotsAcrossSegments() {
        var store = Self.store(users: 2_500)  // three segments of 1,024
        #expect(store.count == 2_500)
        for slot in [0, 1, 1_023, 1_024, 2_047, 2_048, 2_499] as [Int32] {
            store[slot].current.locationAt = UnixMillis(slot) * 10
        }
        for slot in 0..<Int32(2_500) {
            #expect(store[slot].userId == "user-\(slot)")
            store.withTimeline(slot) { timeline in #expect(timeline.userId == "user-\(slot)") }
        }
        #expect(store[1_024].current.locationAt == 10_240)
        #expect(store[2_499].current.locationAt == 24_990)
        #expect(store[5].current.locationAt == .min)
    }

    @Test func aCopyKeepsItsTimelinesWhileTheOtherChanges() {
        var store = Self.store(users: 1_500)
        store[3].current.locationAt = 1
        let copy = store
        store[3].current.locationAt = 2
        store[1_200].current.locationAt = 3
        store.append(UserTimeline(userId: "late-comer"))
        #expect(copy[3].current.locationAt == 1)
        #expect(copy[1_200].current.locationAt == .min)
        #expect(copy.count == 1_500)
        #expect(store[3].current.locationAt == 2)
        #expect(store[1_200].current.locationAt == 3)
        #expect(store[1_500].userId == "late-comer")
        var second = copy
        second[3].current.locationAt = 4
        #expect(copy[3].current.locationAt == 1 && second[3].current.locationAt == 4 && store[3].current.locationAt == 2)
    }
}
