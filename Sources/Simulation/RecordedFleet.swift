import Domain

/// Recorded rides (fixes and trip commands) played as a live fleet: moved in time so the first input
/// falls at `start`, one step of event time after another, and played again and again, each round after
/// the last (its trips renamed `<externalId>-<round>`, so each round's trips are new ones), until the
/// duration is over.
public struct RecordedFleet: LiveFleet {
    public let geofenceRecords: [SimulatedRecord]
    /// The recording's fixes and commands, sorted by event time (stable: a command before the fix it
    /// precedes in the recording stays before it).
    private let inputs: [SimulatedRecord]
    private let recordedStart: UnixMillis
    /// Event time from one round's start to the next: the recording's span and a pause.
    public let roundMilliseconds: Int64
    public let startTime: UnixMillis
    public let stepMilliseconds: Int64
    private let durationMilliseconds: Int64
    private var round = 0
    private var next = 0
    private var step: Int64 = 0

    /// - Parameters:
    ///   - inputs: fixes and trip commands (geofence records among them are left out).
    ///   - duration: seconds of event time to play; `Int64.max`: without end.
    public init(geofences: [Geofence], inputs: [SimulatedRecord], start: UnixMillis, stepSeconds: Int64 = 5,
                duration: Int64 = .max, pause: Int64 = 120)
    {
        geofenceRecords = geofences.map { .geofence($0) }
        let timed = inputs.enumerated().compactMap { index, record in Self.time(of: record).map { ($0, index, record) } }
        self.inputs = timed.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
        recordedStart = timed.map(\.0).min() ?? start
        let recordedEnd = timed.map(\.0).max() ?? start
        roundMilliseconds = recordedEnd - recordedStart + max(pause, 1) * 1000
        startTime = start
        stepMilliseconds = max(stepSeconds, 1) * 1000
        durationMilliseconds = duration >= Int64.max / 1000 ? .max : duration * 1000
    }

    public var currentTime: UnixMillis { startTime + step * stepMilliseconds }

    public var isFinished: Bool { inputs.isEmpty || step * stepMilliseconds > durationMilliseconds }

    public mutating func nextStep(into records: inout [SimulatedRecord]) -> Bool {
        guard !isFinished else { return false }
        let end = currentTime + stepMilliseconds
        while true {
            let shift = startTime - recordedStart + Int64(round) * roundMilliseconds
            guard let time = Self.time(of: inputs[next]), time + shift < end else { break }
            records.append(Self.moved(inputs[next], by: shift, round: round))
            next += 1
            if next == inputs.count {
                next = 0
                round += 1
            }
        }
        step += 1
        return true
    }

    private static func time(of record: SimulatedRecord) -> UnixMillis? {
        switch record {
        case .geofence: nil
        case let .command(command): command.createdAt
        case let .fix(fix): fix.createdAt
        }
    }

    /// The record `shift` later; in rounds after the first, its trip renamed.
    private static func moved(_ record: SimulatedRecord, by shift: Int64, round: Int) -> SimulatedRecord {
        switch record {
        case .geofence: return record
        case var .fix(fix):
            fix.createdAt += shift
            return .fix(fix)
        case var .command(command):
            command.createdAt += shift
            if let scheduled = command.trip.scheduledArrivalAt { command.trip.scheduledArrivalAt = scheduled + shift }
            if round > 0 { command.trip.externalId += "-\(round + 1)" }
            return .command(command)
        }
    }
}
