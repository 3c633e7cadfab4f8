import Domain
import Runtime

/// A user's timeline of `state` with `command` as its one tail input, through `TimelineCodec` and
/// back: what the format tests compare with what went in.
func timelineRoundTrip(of state: UserState, tailCommand command: TripCommand, at time: UnixMillis = 2_000) throws
    -> UserTimeline.Parts
{
    let parts = UserTimeline.Parts(
        userId: "u", current: state, tailStart: UserState(), tail: [TimelineInput(command: command)],
        storedSegments: 0, historyStart: .min, secondSegmentStart: .max, watermark: .min, lastTickTimer: .min,
        newestTime: time)
    return try TimelineCodec.decode(TimelineCodec.encode(parts))
}
