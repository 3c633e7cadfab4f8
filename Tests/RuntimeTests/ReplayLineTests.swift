import Codec
import Domain
@testable import Runtime
import Testing

/// A replay line keeps what the look-ahead asks about its fix (`ReplayLine.lookAhead`), taken once
/// when it is decoded: the hash by which the fold finds the user and the fix's position.
@Suite struct ReplayLineTests {
    @Test func aFixLineKeepsItsUsersHashAndPosition() throws {
        let bytes = Array(#"{"userId":"driver-17","createdAt":"2026-01-05T08:00:00.000Z","latitude":41.1,"longitude":-8.6}"#.utf8)
        let fix = try FixDecoder.decode(bytes)
        let line = ReplayLine(content: .fix(fix), bytes: UnsafeRawBufferPointer(start: nil, count: 0), number: 3)
        let ahead = try #require(line.lookAhead)
        #expect(ahead.userHash == PartitionFold.userHash(of: "driver-17"))
        #expect(ahead.userHash != PartitionFold.userHash(of: "driver-18"))
        #expect(ahead.location == fix.position)
        #expect(ahead.location == Coordinate(latitudeE7: 411_000_000, longitudeE7: -86_000_000))
    }

    @Test func aLineThatIsNoFixHasNothingToAskAhead() {
        let line = ReplayLine(content: .invalid(DecodeError(.invalidJSON, "not a fix")), bytes: UnsafeRawBufferPointer(start: nil, count: 0),
                              number: 4)
        #expect(line.lookAhead == nil)
    }
}
