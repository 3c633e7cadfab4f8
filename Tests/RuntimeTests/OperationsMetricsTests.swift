import Foundation
import Runtime
import Testing

/// The series the alert rules and the dashboard read (deploy/prometheus, deploy/grafana): restore
/// time, health as gauges, a fenced producer, the state directory's bytes on disk.
@Suite struct OperationsMetricsTests {
    /// The sample lines of a rendered scrape, by series (name and labels).
    static func samples(_ text: String) -> [String: String] {
        var samples: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            samples[String(line[..<space])] = String(line[line.index(after: space)...])
        }
        return samples
    }

    @Test func restoresAbortsAndFencingAreExposed() {
        let metrics = RuntimeMetrics()
        metrics.update {
            $0.ready = true
            $0.partitionRestoreSeconds.observe(3)
            $0.partitionRestoreSeconds.observe(0.2)
            $0.restoredBytes = 5_000
            $0.consecutiveAborts = RuntimeMetrics.Values.unhealthyAborts
            $0.producerFenced = true
        }
        let samples = Self.samples(metrics.render())
        #expect(samples[#"tripstream_partition_restore_seconds_bucket{le="0.25"}"#] == "1")
        #expect(samples[#"tripstream_partition_restore_seconds_bucket{le="2.5"}"#] == "1")
        #expect(samples[#"tripstream_partition_restore_seconds_bucket{le="5.0"}"#] == "2")
        #expect(samples["tripstream_partition_restore_seconds_count"] == "2")
        #expect(samples["tripstream_restored_bytes_total"] == "5000")
        #expect(samples["tripstream_consecutive_aborted_transactions"] == "3")
        #expect(samples["tripstream_producer_fenced"] == "1")
        #expect(samples["tripstream_healthy"] == "0", "3 aborts in a row fail /health")
        #expect(samples["tripstream_ready"] == "1")
        let started = Double(samples["process_start_time_seconds"] ?? "") ?? 0
        #expect(abs(started - Date().timeIntervalSince1970) < 600)
        #expect(Double(samples["process_resident_memory_bytes"] ?? "") ?? 0 > 1_000_000)
        #expect(samples.keys.allSatisfy { !$0.hasPrefix("tripstream_state_disk_bytes") }, "no state directory given")
    }

    /// `tripstream_healthy` and `tripstream_ready` say what /health and /ready answer.
    @Test func healthGaugesFollowTheProbes() {
        let metrics = RuntimeMetrics()
        func gauges() -> (String?, String?) {
            let samples = Self.samples(metrics.render())
            return (samples["tripstream_healthy"], samples["tripstream_ready"])
        }
        #expect(gauges() == ("0", "0"), "starting")
        metrics.update { $0.ready = true }
        #expect(gauges() == ("1", "1"))
        metrics.update { $0.restoresInProgress = 2 }
        #expect(gauges() == ("1", "0"), "restoring is alive, not ready")
        metrics.update {
            $0.restoresInProgress = 0
            $0.groupLost = true
        }
        #expect(gauges() == ("0", "1"))
    }

    @Test func stateDiskBytesSplitHistoryFromSnapshots() throws {
        let directory = TestHistory.directory()
        let history = directory + "/tripstream/partition-0.history"
        try FileManager.default.createDirectory(atPath: history, withIntermediateDirectories: true)
        try Data(repeating: 7, count: 100_000).write(to: URL(fileURLWithPath: history + "/000009.sst"))
        try Data(repeating: 7, count: 30_000).write(to: URL(fileURLWithPath: directory + "/tripstream/partition-0.snapshot"))

        let usage = StateDiskUsage.measure(directory)
        #expect(usage == StateDiskUsage(historyBytes: 100_000, snapshotBytes: 30_000))
        #expect(StateDiskUsage.measure(directory + "/not-yet") == StateDiskUsage())

        let samples = Self.samples(RuntimeMetrics(stateDirectory: directory).render())
        #expect(samples[#"tripstream_state_disk_bytes{store="history"}"#] == "\(usage.historyBytes)")
        #expect(samples[#"tripstream_state_disk_bytes{store="snapshots"}"#] == "\(usage.snapshotBytes)")
    }

    /// What `promtool check metrics` asks, checked without it: every series has HELP and TYPE, and
    /// counters end in `_total` (CI also runs promtool on a live scrape: .ci/prometheus-check.sh).
    @Test func everySeriesHasHelpAndCountersEndInTotal() {
        let text = RuntimeMetrics(stateDirectory: TestHistory.directory()).render()
        var helped = Set<String>()
        var types: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if line.hasPrefix("# HELP ") { helped.insert(String(words[2])) }
            if line.hasPrefix("# TYPE ") { types[String(words[2])] = String(words[3]) }
        }
        #expect(types.count > 40)
        #expect(Set(types.keys) == helped)
        for (name, type) in types where type == "counter" { #expect(name.hasSuffix("_total"), "\(name)") }
        for (name, type) in types where type != "counter" { #expect(!name.hasSuffix("_total"), "\(name)") }
    }
}
