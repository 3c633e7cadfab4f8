/// A partition of a replay of history whose log starts after `--since`: its first record still held is later
/// than `--since`, and records before it were removed (retention, compaction, or the dev broker's size limit), so
/// the replay may miss what they held. Reported, never silent.
public struct HistoryCut: Sendable, Equatable {
    /// The topic (an archive: its folder, `locations` or `trip-commands`).
    public var topic: String
    public var partition: Int32
    /// The first offset still held: up to this many earlier records are gone (fewer when compaction kept some).
    public var firstOffset: Int64
    /// The Kafka timestamp of that first record, later than `--since`.
    public var firstTimestamp: Int64
}
