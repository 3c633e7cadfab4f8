/// The librdkafka properties TripStream sets, by what they are for: the one place outside the
/// properties file where their names appear. Each `with…` returns a copy; defaults (`settingDefault`)
/// never override what a user's properties file says, assignments do.
extension KafkaConfiguration {
    // MARK: - Names

    /// `bootstrap.servers`: where the client starts.
    public var bootstrapServers: String? {
        get { self["bootstrap.servers"] }
        set { self["bootstrap.servers"] = newValue }
    }

    /// `group.id`: the consumer group (readers that join none still need one for librdkafka).
    public var groupId: String? {
        get { self["group.id"] }
        set { self["group.id"] = newValue }
    }

    /// A copy in consumer group `id`.
    public func inGroup(_ id: String) -> KafkaConfiguration {
        var copy = self
        copy.groupId = id
        return copy
    }

    /// A copy in consumer group `id` unless the properties name one.
    public func inGroupByDefault(_ id: String) -> KafkaConfiguration { settingDefault("group.id", id) }

    /// `message.max.bytes`: the largest record a producer sends. Default (librdkafka's): 1,000,000.
    public var maximumMessageBytes: Int { self["message.max.bytes"].flatMap { Int($0) } ?? 1_000_000 }

    // MARK: - Consumers

    /// Defaults for a consumer that catches up at full speed and sees new records at once.
    /// - A broker holds a fetch that finds nothing for up to `fetch.wait.max.ms`. Kafka answers
    ///   early when data arrives; librdkafka's mock (the dev broker) does not, so the default 500 ms
    ///   would be latency. Idle fetches every 25 ms cost a broker little.
    /// - librdkafka 2.0 stops fetching when its queue holds `queued.min.messages` (counted over all
    ///   partitions) and looks again only a second later: while catching up, that second is lost every
    ///   100,000 records. The byte bound (`queued.max.messages.kbytes`, 64 MiB) bounds memory instead.
    public func fetchingEagerly() -> KafkaConfiguration {
        settingDefault("fetch.wait.max.ms", "25")
            .settingDefault("queued.min.messages", "10000000")
            .settingDefault("queued.max.messages.kbytes", "65536")
    }

    /// A default of 16 MiB per partition fetch: a reader that reads one partition at a time.
    public func fetchingLargePartitionBatches() -> KafkaConfiguration {
        settingDefault("max.partition.fetch.bytes", "16777216")
    }

    /// A short `fetch.wait.max.ms` (a latency probe).
    public func fetchWait(milliseconds: Int) -> KafkaConfiguration {
        var copy = self
        copy["fetch.wait.max.ms"] = String(milliseconds)
        return copy
    }

    /// Without a committed offset, start at the end (`auto.offset.reset=latest`).
    public func startingAtTheEnd() -> KafkaConfiguration {
        var copy = self
        copy["auto.offset.reset"] = "latest"
        return copy
    }

    /// Without a committed offset, start at the beginning (`auto.offset.reset=earliest`): a new group
    /// reads what was published before it joined.
    public func startingAtTheBeginning() -> KafkaConfiguration {
        var copy = self
        copy["auto.offset.reset"] = "earliest"
        return copy
    }

    /// Defaults for a group member that fails over quickly: a crashed member's partitions move once
    /// its session times out, 7 s (librdkafka: 45 s) with a heartbeat a second. `max.poll.interval.ms`
    /// stays 5 min, as restores run between polls.
    public func failingOverQuickly(clientId: String) -> KafkaConfiguration {
        settingDefault("client.id", clientId)
            .settingDefault("session.timeout.ms", "7000")
            .settingDefault("heartbeat.interval.ms", "1000")
            .settingDefault("max.poll.interval.ms", "300000")
    }

    /// A static member by default (`group.instance.id`): restarted within its session, it keeps its
    /// partitions and the others are not disturbed.
    public func staticMember(instanceId: String) -> KafkaConfiguration {
        settingDefault("group.instance.id", instanceId)
    }

    // MARK: - Producers and connections

    /// Small requests every commit: Nagle's algorithm with delayed ACKs would add ~40 ms per round
    /// trip. A default: a properties file can still say otherwise.
    public func withoutNagleByDefault() -> KafkaConfiguration { settingDefault("socket.nagle.disable", "true") }

    /// A default `linger.ms`: how long a producer waits to fill a batch.
    public func lingering(milliseconds: Int) -> KafkaConfiguration { settingDefault("linger.ms", String(milliseconds)) }

    /// Lingers `milliseconds` whatever the properties say (a benchmark's fixed setting).
    public func alwaysLingering(milliseconds: Int) -> KafkaConfiguration {
        var copy = self
        copy["linger.ms"] = String(milliseconds)
        return copy
    }

    /// LZ4 compression by default: JSON and state records shrink several-fold.
    public func compressingWithLZ4ByDefault() -> KafkaConfiguration { settingDefault("compression.type", "lz4") }
}

/// Topic-level configuration (`TopicSpec.config`).
public enum TopicConfiguration {
    /// A compacted topic: the latest record per key is kept.
    public static let compacted = ["cleanup.policy": "compact"]
}
