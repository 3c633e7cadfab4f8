import Codec
import Domain

/// What `run` needs of a partition's state besides folding records: its stream time and counters, the image a
/// snapshot writes, the users it seals, restores and evictions. Only the engine reaches into its fold.
extension PartitionEngine {
    /// The partition's stream time (`.min` before any input).
    var streamTime: UnixMillis { processor.fold.streamTime }

    var foldCounters: FoldCounters { processor.fold.counters }
    var processorCounters: ProcessorCounters { processor.counters }
    var userCount: Int { processor.fold.userCount }

    /// The fold as a value (sharing storage with the live one until it changes): what a snapshot holds.
    var image: PartitionFold { processor.fold }

    /// Resumes the stream time a checkpoint recorded.
    mutating func restoreStreamTime(_ time: UnixMillis) { processor.fold.restoreStreamTime(time) }

    /// Installs the users a restore read (snapshot and changelog).
    mutating func install(_ restore: PartitionRestore, geofences: GeofenceTable) throws {
        try restore.install(into: &processor.fold, geofences: geofences)
    }

    /// Moves users idle since before `cutoff` out of memory (to the history store). - Returns: how many.
    mutating func evictIdleUsers(before cutoff: UnixMillis) -> Int { processor.fold.evictIdleUsers(before: cutoff) }

    /// Moves stream time on to `time` with no input (a quiet partition), firing the timers due.
    mutating func advanceStreamTime(to time: UnixMillis, geofences: GeofenceTable, processingTime: UnixMillis?,
                                    into output: inout OutputBatch)
    {
        processor.advanceStreamTime(to: time, geofences: geofences, processingTime: processingTime, into: &output)
    }

    /// Encodes the users changed since the last call (users topic) and hands each timeline to `changed`.
    mutating func flushUsers(geofences: GeofenceTable, now: UnixMillis, into output: inout OutputBatch,
                             persist: (borrowing UserTimeline) -> Void)
    {
        processor.flushUsers(geofences: geofences, now: now, into: &output, persist: persist)
    }
}
