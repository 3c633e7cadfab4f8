import Domain
import Synchronization
import struct Foundation.Date

/// The runtime's counters and gauges, shared with the metrics endpoint's thread.
public final class RuntimeMetrics: Sendable {
    public struct Values: Sendable {
        public var consumed: [String: Int] = [:]
        public var fold = FoldCounters()
        public var processor = ProcessorCounters()
        public var transactionsCommitted = 0
        public var transactionsAborted = 0
        /// Inputs whose outputs, state and offsets were committed.
        public var inputsCommitted = 0
        /// Per input partition, the next offsets of fixes and commands committed (what the service has read
        /// for good).
        public var committedOffsets: [Int32: (locations: Int64, commands: Int64)] = [:]
        /// Transaction calls repeated after a retriable error (coordinator moving, request timed out).
        public var transactionRetries = 0
        /// Output records sent into the open transaction before its seal, while the fold went on.
        public var outputsSentEarly = 0
        /// Threads folding owned partitions.
        public var foldThreads = 0
        /// Partitions whose fetching is paused because their fetched inputs reached the bound.
        public var pausedPartitions = 0
        public var partitionPauses = 0
        /// Fold time per poll batch: counts per upper bound in seconds.
        public var foldBatchSeconds = Histogram(bounds: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1])
        public var commitSeconds = Histogram(bounds: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5])
        /// Time to write one partition's local snapshot, on its fold thread (the other partitions fold on).
        public var snapshotSeconds = Histogram(bounds: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
        /// From an input's Kafka timestamp to the commit of the transaction holding its outputs: what
        /// a read_committed reader waits for an event, broker time included.
        public var inputToCommitSeconds = Histogram(bounds: [
            0.01, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 10, 30, 60,
        ])
        public var lag: [Int32: Int64] = [:]
        public var restoredRecords = 0
        /// Time spent restoring partitions, seconds.
        public var restoreSeconds = 0.0
        public var restoresInProgress = 0
        /// Time to restore one partition's state (snapshot, then changelog), per restore.
        public var partitionRestoreSeconds = Histogram(bounds: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300])
        /// Bytes of state-changelog records read by restores (keys and values).
        public var restoredBytes = 0
        /// A newer instance with this one's transactional id fenced its producer: this one stops.
        public var producerFenced = false
        public var ownedPartitions = 0
        /// Partitions reported lost (session expired): dropped without committing.
        public var partitionsLost = 0
        /// Inputs folded past the other input stream after `mergeWait` without the broker confirming its end.
        public var forcedMerges = 0
        /// Stored history segments that could not be read and were skipped.
        public var corruptHistorySegments = 0
        /// State-changelog records that could not be read during restores and were skipped.
        public var corruptChangelogRecords = 0
        /// Local snapshots that could not be read (the partition was restored from the changelog).
        public var corruptSnapshots = 0
        public var trackedUsers = 0
        public var geofences = 0
        public var ready = false
        /// Transactions aborted since the last one committed.
        public var consecutiveAborts = 0
        /// Our partitions were reported lost and none was assigned since.
        public var groupLost = false
        public init() {}

        /// Aborts in a row after which the instance reports itself unhealthy.
        public static let unhealthyAborts = 3

        /// Why `/health` fails, nil when healthy.
        public var healthProblem: String? {
            if consecutiveAborts >= Self.unhealthyAborts {
                return "unhealthy: \(consecutiveAborts) transactions aborted in a row"
            }
            if groupLost { return "unhealthy: the consumer group lost this instance's partitions" }
            return nil
        }
    }

    /// Cumulative histogram in Prometheus' shape.
    public struct Histogram: Sendable {
        public let bounds: [Double]
        public var counts: [Int]
        public var sum = 0.0
        public var count = 0

        public init(bounds: [Double]) {
            self.bounds = bounds
            counts = [Int](repeating: 0, count: bounds.count)
        }

        /// The smallest bound at or below which at least `fraction` of the observations fall (`nil` when
        /// empty; `.infinity` when beyond the last bound).
        public func quantileBound(_ fraction: Double) -> Double? {
            guard count > 0 else { return nil }
            let wanted = Int((Double(count) * fraction).rounded(.up))
            for (bound, cumulative) in zip(bounds, counts) where cumulative >= wanted { return bound }
            return .infinity
        }

        /// The observations made since `earlier`, a snapshot of this histogram.
        public func since(_ earlier: Histogram) -> Histogram {
            var delta = self
            for index in counts.indices { delta.counts[index] -= earlier.counts[index] }
            delta.sum -= earlier.sum
            delta.count -= earlier.count
            return delta
        }

        public mutating func observe(_ value: Double) {
            for (i, bound) in bounds.enumerated() where value <= bound { counts[i] += 1 }
            sum += value
            count += 1
        }
    }

    private let values = Mutex(Values())
    /// Where `run` keeps its state, measured at each scrape (`tripstream_state_disk_bytes`); nil: not exposed.
    public let stateDirectory: String?
    /// Seconds since the Unix epoch at which this process started, for `process_start_time_seconds`.
    private let startTime = Date().timeIntervalSince1970

    public init(stateDirectory: String? = nil) { self.stateDirectory = stateDirectory }

    public func update(_ body: (inout Values) -> Void) { values.withLock { body(&$0) } }

    public var snapshot: Values { values.withLock { $0 } }

    /// Prometheus text exposition format 0.0.4.
    public func render() -> String {
        let v = snapshot
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for sample in samples { out += "\(name)\(sample.labels) \(sample.value)\n" }
        }
        metric("tripstream_records_consumed_total", "counter", "Input records folded (committed or about to be), by topic.",
               v.consumed.sorted { $0.key < $1.key }.map { ("{topic=\"\($0.key)\"}", "\($0.value)") })
        metric("tripstream_events_produced_total", "counter", "Events produced, by type.",
               EventType.allCases.map { ("{type=\"\($0.name)\"}", "\(v.fold.eventsByType[Int($0.rawValue)])") })
        metric("tripstream_events_republished_total", "counter", "Events republished after an offline replay.",
               [("{revision=\"corrected\"}", "\(v.fold.corrected)"), ("{revision=\"retracted\"}", "\(v.fold.retracted)")])
        var letters = v.processor.deadLetters
        for (reason, count) in v.fold.rejected { letters[reason, default: 0] += count }
        metric("tripstream_dead_letters_total", "counter", "Inputs dead-lettered, by reason.",
               RejectionReason.allCases.map { ("{reason=\"\($0.rawValue)\"}", "\(letters[$0] ?? 0)") })
        metric("tripstream_trip_commands_unknown_destination_total", "counter",
               "Trip commands naming a destination geofence not in the table: their trips get no ETA and never arrive.",
               [("", "\(v.processor.unknownDestinations)")])
        metric("tripstream_rewinds_total", "counter",
               "Refolds that placed late inputs at their place in event time (one per user per batch).",
               [("", "\(v.fold.rewinds)")])
        metric("tripstream_late_inputs_total", "counter",
               "Inputs that arrived after a newer input of their user and were placed by a refold.",
               [("", "\(v.fold.lateInputs)")])
        metric("tripstream_refolded_inputs_total", "counter",
               "Inputs folded by refolds (the old history and the corrected one): what late data costs.",
               [("", "\(v.fold.refoldedInputs)")])
        metric("tripstream_corrupt_history_segments_total", "counter",
               "Stored history segments that could not be read and were skipped (the refold starts after them).",
               [("", "\(v.corruptHistorySegments)")])
        metric("tripstream_corrupt_changelog_records_total", "counter",
               "State-changelog records that could not be read while restoring and were skipped (the user keeps their previous state).",
               [("", "\(v.corruptChangelogRecords)")])
        metric("tripstream_partitions_lost_total", "counter",
               "Partitions reported lost (session expired or fenced) and dropped without committing.",
               [("", "\(v.partitionsLost)")])
        metric("tripstream_users_evicted_total", "counter",
               "Users moved out of memory while idle beyond the replay horizon (their state kept on disk).",
               [("", "\(v.fold.usersEvicted)")])
        metric("tripstream_users_returned_total", "counter", "Evicted users brought back by a new input.",
               [("", "\(v.fold.usersReturned)")])
        metric("tripstream_corrupt_snapshots_total", "counter",
               "Local snapshots that could not be read; their partitions were restored from the changelog instead.",
               [("", "\(v.corruptSnapshots)")])
        metric("tripstream_duplicates_total", "counter", "Duplicate inputs dropped.", [("", "\(v.fold.duplicates)")])
        metric("tripstream_filtered_fixes_total", "counter", "Fixes left out of the state by the filters.",
               [("{filter=\"gps_jump\"}", "\(v.fold.filteredJumps)"),
                ("{filter=\"too_inaccurate\"}", "\(v.fold.tooInaccurate)")])
        metric("tripstream_transactions_total", "counter", "Kafka transactions, by outcome.",
               [("{result=\"committed\"}", "\(v.transactionsCommitted)"),
                ("{result=\"aborted\"}", "\(v.transactionsAborted)")])
        metric("tripstream_inputs_committed_total", "counter",
               "Inputs whose outputs, state and offsets were committed.", [("", "\(v.inputsCommitted)")])
        metric("tripstream_transaction_retries_total", "counter",
               "Transaction calls repeated after a retriable error (coordinator moving, request timed out).",
               [("", "\(v.transactionRetries)")])
        metric("tripstream_outputs_sent_early_total", "counter",
               "Output records sent into the open transaction while the fold went on, before its seal.",
               [("", "\(v.outputsSentEarly)")])
        metric("tripstream_fold_threads", "gauge", "Threads folding owned partitions.", [("", "\(v.foldThreads)")])
        metric("tripstream_paused_partitions", "gauge",
               "Partitions whose fetching is paused: their fetched inputs reached --max-pending-inputs.",
               [("", "\(v.pausedPartitions)")])
        metric("tripstream_partition_pauses_total", "counter", "Times a partition's fetching was paused.",
               [("", "\(v.partitionPauses)")])
        histogram(&out, "tripstream_fold_batch_seconds", "Time to fold one poll batch.", v.foldBatchSeconds)
        histogram(&out, "tripstream_commit_seconds", "Time to commit one transaction.", v.commitSeconds)
        histogram(&out, "tripstream_snapshot_seconds", "Time to write one partition's local snapshot (the other partitions fold on).",
                  v.snapshotSeconds)
        histogram(&out, "tripstream_input_to_commit_seconds",
                  "From an input record's timestamp to the commit of the transaction holding its outputs.",
                  v.inputToCommitSeconds)
        metric("tripstream_consumer_lag", "gauge", "Records behind the end of each owned fixes partition.",
               v.lag.sorted { $0.key < $1.key }.map { ("{partition=\"\($0.key)\"}", "\($0.value)") })
        metric("tripstream_restored_records_total", "counter", "State changelog records restored.",
               [("", "\(v.restoredRecords)")])
        metric("tripstream_restores_in_progress", "gauge", "Partitions being restored.", [("", "\(v.restoresInProgress)")])
        metric("tripstream_owned_partitions", "gauge", "Input partitions this instance owns.",
               [("", "\(v.ownedPartitions)")])
        metric("tripstream_tracked_users", "gauge", "Users with state on this instance.", [("", "\(v.trackedUsers)")])
        metric("tripstream_geofences", "gauge", "Geofences in the table.", [("", "\(v.geofences)")])
        metric("tripstream_forced_merges_total", "counter",
               "Inputs folded past the other input stream after --merge-wait without the broker confirming its end.",
               [("", "\(v.forcedMerges)")])
        histogram(&out, "tripstream_partition_restore_seconds",
                  "Time to restore one partition's state from its snapshot and the changelog.", v.partitionRestoreSeconds)
        metric("tripstream_restored_bytes_total", "counter", "State-changelog bytes (keys and values) read by restores.",
               [("", "\(v.restoredBytes)")])
        metric("tripstream_healthy", "gauge", "1 when /health answers 200, else 0 (starting, aborts in a row, group lost).",
               [("", v.ready && v.healthProblem == nil ? "1" : "0")])
        metric("tripstream_ready", "gauge", "1 when /ready answers 200 (started, no partition restoring), else 0.",
               [("", v.ready && v.restoresInProgress == 0 ? "1" : "0")])
        metric("tripstream_consecutive_aborted_transactions", "gauge",
               "Transactions aborted since the last one committed (/health fails at \(Values.unhealthyAborts)).",
               [("", "\(v.consecutiveAborts)")])
        metric("tripstream_producer_fenced", "gauge",
               "1 once a newer instance with this instance's id fenced its producer (the instance then stops).",
               [("", v.producerFenced ? "1" : "0")])
        if let stateDirectory {
            let usage = StateDiskUsage.measure(stateDirectory)
            metric("tripstream_state_disk_bytes", "gauge",
                   "Bytes of the files under --state-dir: the replay horizon's history (RocksDB) and the hot states' snapshots.",
                   [("{store=\"history\"}", "\(usage.historyBytes)"), ("{store=\"snapshots\"}", "\(usage.snapshotBytes)")])
        }
        if let resident = ProcessMemory.residentBytes() {
            metric("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", [("", "\(resident)")])
        }
        metric("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.",
               [("", "\(startTime)")])
        return out
    }

    private func histogram(_ out: inout String, _ name: String, _ help: String, _ h: Histogram) {
        out += "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        for (bound, count) in zip(h.bounds, h.counts) { out += "\(name)_bucket{le=\"\(bound)\"} \(count)\n" }
        out += "\(name)_bucket{le=\"+Inf\"} \(h.count)\n\(name)_sum \(h.sum)\n\(name)_count \(h.count)\n"
    }
}
