/// Where a replay of history reads (`tripstream replay --brokers` or `--archive`): the geofence topic whole, and
/// per Kafka partition of the inputs, the records of the replay's time range in offset order, with their Kafka
/// timestamps.
protocol ReplayRecordSource {
    /// The input partitions there are (locations and trip commands are co-partitioned), ascending.
    var partitions: [Int32] { get }

    /// Every surviving record of the geofences topic.
    func geofenceRecords() throws -> [GeofenceTimeline.Record]

    /// Records of the range in `partition` of the locations or trip-commands stream, in offset order
    /// (`value` nil: a null value, a tombstone).
    func forEachRecord(_ stream: ReplayStream, partition: Int32,
                       _ body: (_ offset: Int64, _ timestamp: Int64, _ key: [UInt8]?, _ value: UnsafeRawBufferPointer?)
                           throws -> Void)
        throws

    /// A source of the same records over a reader of its own, for another thread: nothing is looked up again, so
    /// every copy reads the same ranges.
    func copyForAnotherThread() throws -> any ReplayRecordSource

    /// Records of `stream` in the range of `partition`, as far as known before reading (for progress).
    func recordEstimate(_ stream: ReplayStream, partition: Int32) -> Int64

    /// The partitions whose log starts after `since`, records before it removed (``HistoryCut``).
    var cuts: [HistoryCut] { get }
}

enum ReplayStream { case fixes, commands }
