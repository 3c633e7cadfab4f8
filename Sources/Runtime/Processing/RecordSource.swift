/// Where an input record came from: named in its dead letter so it can be found and replayed.
/// For files, `topic` is the logical topic the file stands for and `offset` the line number.
public struct RecordSource: Sendable, Equatable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64

    public init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }
}
