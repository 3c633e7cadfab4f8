import Codec
import CommandLineKit
import CommandSupport
import Domain
import Foundation
import KafkaIO
import Runtime
import Simulation
import Synchronization

/// `tripstream-bench --pipeline`: the Kafka path end to end on the embedded broker, exactly-once
/// on: throughput next to kcat consuming the same topic raw, fix-to-event latency at half that
/// load, and restore speed from the changelog.
enum PipelineBench {
    static let partitions: Int32 = 8

    static func run(parsed: ParsedArguments, workload: BenchWorkload) throws {
        let threadCounts = try parsed.optional("pipeline-threads", parsed.string).map(parseThreadCounts)
            ?? Array(Set([1, RuntimeOptions.availableCores])).sorted()
        let topics = Topics()
        // The mock keeps about 5 MiB per partition: stay well under it.
        let averageLine = max(workload.fixBytes / max(workload.fixLines.count, 1), 1)
        let fixCount = min(workload.fixLines.count, Int(partitions) * 3_000_000 / averageLine)
        let expected = fixCount + countCommands(workload, fixes: fixCount)
        let state = NSTemporaryDirectory() + "tripstream-pipeline-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: state) }
        // Each thread count on a broker of its own holding the same records: a second run on one broker
        // would resume from the first one's changelog and find nothing left to do.
        var last: (cluster: MockCluster, instance: PipelineInstance, rate: Double)?
        for threads in threadCounts {
            last?.instance.stop()
            try? FileManager.default.removeItem(atPath: state)
            let cluster = try DevBrokerCluster.start(brokerCount: 1, partitions: partitions, topics: topics)
            try publish(workload, fixes: fixCount, to: cluster, topics: topics)
            let kcatRate = try kcatRate(bootstrap: cluster.bootstrapServers, topic: topics.locations, expected: fixCount)
            let instance = PipelineInstance(cluster: cluster, state: state, instance: "bench", threads: threads)
            let span = instance.measureThroughput(expected: expected)
            let ours = Double(span.inputs) * Double(fixCount) / Double(expected) / span.seconds
            var line = "pipeline        \(Int(ours).grouped) fixes/s with --threads \(threads), exactly-once, \(partitions) partitions"
            line += " (first fold round to the last commit: \(span.inputs.grouped) inputs in \(String(format1: span.seconds)) s)"
            Terminal.output(line)
            if let kcatRate {
                Terminal.output("kcat            \(Int(kcatRate).grouped) fixes/s consuming the same topic raw; ratio \(String(format1: 100 * ours / kcatRate))%")
            }
            last = (cluster, instance, ours)
        }
        guard let (cluster, first, ours) = last else { return }
        guard ours > 0 else {
            first.stop()
            throw CommandFailure("the pipeline committed nothing within 10 minutes: no latency to measure")
        }
        let fixedRate = try parsed.optional("latency-rate") { option throws(CommandLineError) in
            try parsed.int(option, in: 1...10_000_000)
        }
        let rate = fixedRate.map(Double.init) ?? ours / 2
        let latency = try measureLatency(cluster: cluster, topics: topics, rate: rate, seconds: 10, warmUp: 3,
                                         metrics: first.metrics)
        let commits = first.metrics.snapshot.commitSeconds
        Terminal.output("commits         \(commits.count.grouped) transactions, mean \(Int(1000 * commits.sum / Double(max(commits.count, 1)))) ms each (committed while the next one is folded)")
        let load = fixedRate == nil ? "half load" : "--latency-rate"
        Terminal.output("latency         at \(Int(rate).grouped) fixes/s (\(load)): p50 \(latency.p50) ms, p99 \(latency.p99) ms fix-to-event (\(latency.samples.grouped) live events of 10 s, after 3 s at that rate)")
        let committed = latency.committed
        func bound(_ fraction: Double) -> String {
            guard let seconds = committed.quantileBound(fraction) else { return "-" }
            return seconds.isFinite ? "≤ \(Int((seconds * 1000).rounded())) ms" : "> 60 s"
        }
        Terminal.output("committed       p50 \(bound(0.5)), p99 \(bound(0.99)) from a fix's Kafka timestamp to the commit of its transaction (\(committed.count.grouped) inputs; a real Kafka shows events to read_committed readers then, the dev broker as soon as they are written)")
        first.stop()
        // Restore speed: a new instance without local state rebuilds every partition from the changelog.
        try? FileManager.default.removeItem(atPath: state)
        let second = PipelineInstance(cluster: cluster, state: state, instance: "bench", threads: threadCounts.last!)
        let restored = second.waitForRestore(partitions: Int(partitions))
        second.stop()
        let secondsPerGB = restored.seconds / max(Double(restored.bytes) / 1e9, 1e-12)
        Terminal.output("restore         \(Int(Double(restored.records) / max(restored.seconds, 1e-9)).grouped) changelog records/s (\(restored.records.grouped) records, \(restored.bytes / 1_000_000) MB, \(String(format1: restored.seconds)) s of a fold thread: \(Int(secondsPerGB)) s per GB of changelog)")
        withExtendedLifetime(cluster) {}
    }

    /// `1,2` → [1, 2].
    static func parseThreadCounts(_ text: String) throws -> [Int] {
        let counts = text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !counts.isEmpty, counts.allSatisfy({ (1...256).contains($0) }) else {
            throw CommandFailure("--pipeline-threads wants thread counts from 1 to 256, comma-separated; got \(text)")
        }
        return counts
    }

    static func countCommands(_ workload: BenchWorkload, fixes: Int) -> Int {
        workload.commandPositions.filter { $0 < fixes }.count
    }

    /// Geofences, then commands and fixes in arrival order, keyed by userId.
    static func publish(_ workload: BenchWorkload, fixes: Int, to cluster: MockCluster, topics: Topics) throws {
        var configuration = cluster.clientConfiguration
        configuration = configuration.alwaysLingering(milliseconds: 5)
        let producer = try KafkaProducer(configuration: configuration)
        for (geofence, line) in zip(workload.geofences, workload.geofenceLines) {
            try producer.produce(topic: topics.geofences, key: Array("\(geofence.tag)/\(geofence.externalId)".utf8),
                                 value: line)
        }
        var nextCommand = 0
        for index in 0..<fixes {
            while nextCommand < workload.commandLines.count, workload.commandPositions[nextCommand] <= index {
                let line = workload.commandLines[nextCommand]
                try producer.produce(topic: topics.tripCommands, key: userKey(line), value: line)
                nextCommand += 1
            }
            let line = workload.fixLines[index]
            try producer.produce(topic: topics.locations, key: userKey(line), value: line)
        }
        let report = try producer.flush(timeout: .seconds(120))
        guard report.allDelivered else { throw CommandFailure("publishing the workload failed") }
    }

    /// The userId of an input line (`{"userId":"…"` or `…"userId":"…"`).
    static func userKey(_ line: [UInt8]) -> [UInt8] {
        line.withUnsafeBytes { bytes in
            guard let start = find("\"userId\":\"", in: bytes, from: 0),
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "\""))
            else { return [] }
            return Array(bytes[start..<end])
        }
    }

    /// kcat reading the fixes topic from the beginning to its end, counting records.
    static func kcatRate(bootstrap: String, topic: String, expected: Int) throws -> Double? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["kcat", "-C", "-b", bootstrap, "-t", topic, "-o", "beginning", "-e", "-q", "-f", "%o\n"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let started = WallClock.monotonic()
        do { try process.run() } catch {
            Terminal.error("kcat not found: no raw-consumer baseline")
            return nil
        }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = WallClock.monotonic() - started
        let count = output.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        guard process.terminationStatus == 0, count >= expected else {
            Terminal.error("kcat read \(count) of \(expected) records (status \(process.terminationStatus))")
            return nil
        }
        return Double(count) / seconds
    }

    /// Fresh fixes at `rate` for `warmUp + seconds`, createdAt = the moment they are produced; latency
    /// is the time until a read_committed consumer of the events topic sees the event they caused,
    /// for the fixes of the last `seconds`. The first seconds are left out: the pipeline comes to the
    /// probe from the throughput run's backlog (its last commits, snapshots, compactions), and the
    /// probe's first fixes queue behind it, which says nothing about a steady load.
    static func measureLatency(cluster: MockCluster, topics: Topics, rate: Double, seconds: Double, warmUp: Double,
                               metrics: RuntimeMetrics) throws
        -> (p50: Int, p99: Int, samples: Int, committed: RuntimeMetrics.Histogram)
    {
        var consumerConfiguration = cluster.clientConfiguration
        consumerConfiguration = consumerConfiguration.inGroup("latency-probe").startingAtTheEnd().fetchWait(milliseconds: 10)
        let consumer = try KafkaConsumer(configuration: consumerConfiguration)
        try consumer.subscribe([topics.events])
        let joinDeadline = WallClock.monotonic() + 30
        while try consumer.assignment().isEmpty, WallClock.monotonic() < joinDeadline {
            _ = try consumer.poll(maxRecords: 1000, timeout: .milliseconds(100))
        }
        let stop = StopFlag()
        let fleet = latencyFleet(rate: rate, seconds: warmUp + seconds)
        let clientConfiguration = cluster.clientConfiguration
        // The probe shares the machine with what it measures: its fixes are generated and encoded
        // before the clock starts, and only their createdAt is written when each is sent. It sends
        // in ticks of a millisecond, every fix due by then stamped with the tick's time: reading the
        // clock and sleeping once per fix took a fifth of a core at 85,000 fixes/s.
        let publisher = Thread {
            do {
                // librdkafka's default linger.ms (5): a device gateway batches like any producer.
                let producer = try KafkaProducer(configuration: clientConfiguration)
                let begin = WallClock.monotonic()
                var sent = 0
                var value: [UInt8] = []
                var next = fleet.startIndex
                while next < fleet.endIndex, !stop.isSet {
                    let tick = WallClock.monotonic()
                    let due = Int((tick - begin) * rate) + 1
                    let stamp = Array(RFC3339.string(WallClock.now()).utf8)
                    while sent < due, next < fleet.endIndex {
                        let record = fleet[next]
                        next += 1
                        value.removeAll(keepingCapacity: true)
                        value.append(contentsOf: record.value)
                        if let at = record.createdAtRange { value.replaceSubrange(at, with: stamp) }  // as wide as `at`
                        try producer.produce(topic: record.isFix ? topics.locations : topics.tripCommands,
                                             key: record.key, value: value)
                        if record.isFix { sent += 1 }
                    }
                    producer.poll()
                    let rest = tick + 0.001 - WallClock.monotonic()
                    if rest > 0 { Terminal.sleep(seconds: rest) }
                }
                _ = try producer.flush(timeout: .seconds(10))
            } catch {
                Terminal.error("latency publisher failed: \(error)")
            }
        }
        let measuredFrom = WallClock.now() + Int64(warmUp * 1000)
        var committedBefore: RuntimeMetrics.Histogram?
        publisher.start()
        var latencies: [Int64] = []
        let end = WallClock.monotonic() + warmUp + seconds + 3
        let prefix = Array("latency-".utf8)
        while WallClock.monotonic() < end {
            if committedBefore == nil, WallClock.now() >= measuredFrom {
                committedBefore = metrics.snapshot.inputToCommitSeconds
            }
            for record in try consumer.poll(maxRecords: 10_000, timeout: .milliseconds(50)) {
                let received = WallClock.now()
                guard let key = record.key, key.starts(with: prefix), let value = record.value,
                    let createdAt = liveEventTime(value), createdAt >= measuredFrom
                else { continue }
                latencies.append(received - createdAt)
            }
        }
        stop.set()
        try? consumer.close()
        let committed = metrics.snapshot.inputToCommitSeconds.since(committedBefore ?? metrics.snapshot.inputToCommitSeconds)
        latencies.sort()
        guard !latencies.isEmpty else { return (-1, -1, 0, committed) }
        func percentile(_ p: Double) -> Int { Int(latencies[min(Int(Double(latencies.count) * p), latencies.count - 1)]) }
        return (percentile(0.5), percentile(0.99), latencies.count, committed)
    }
}

extension PipelineBench {
    /// A record of the latency probe, encoded ahead: where its createdAt's text is, if a fix or
    /// command carries one (stamped with the send time when sent).
    struct ProbeRecord {
        var isFix: Bool
        var key: [UInt8]
        var value: [UInt8]
        var createdAtRange: Range<Int>?
    }

    /// One fix per user per second at `rate` fixes/s for `seconds` (plus 2 s of slack), users
    /// prefixed `latency-`, each with a placeholder createdAt of the width every stamp has.
    static func latencyFleet(rate: Double, seconds: Double) -> [ProbeRecord] {
        var settings = SimulationSettings()
        settings.users = max(Int(rate), 10)
        settings.geofences = 1_000
        settings.fixInterval = 1
        settings.duration = Int64(seconds) + 2
        settings.start = WallClock.now()
        settings.offlineChance = 0
        settings.duplicateChance = 0
        settings.seed = 99
        var simulator = FleetSimulator(settings: settings)
        var fleet: [ProbeRecord] = []
        var records: [SimulatedRecord] = []
        var key: [UInt8] = [], value: [UInt8] = []
        let placeholder = WallClock.now()
        let stamp = Array(RFC3339.string(placeholder).utf8)
        while simulator.nextStep(into: &records) {
            for record in records {
                let isFix: Bool
                switch record {
                case var .command(command):
                    command.userId = "latency-" + command.userId
                    command.createdAt = placeholder
                    InputRecordEncoder.encode(.command(command), key: &key, value: &value)
                    isFix = false
                case var .fix(fix):
                    fix.userId = "latency-" + fix.userId
                    fix.createdAt = placeholder
                    InputRecordEncoder.encode(.fix(fix), key: &key, value: &value)
                    isFix = true
                case .geofence: continue
                }
                let range = value.withUnsafeBytes { find("\"createdAt\":\"", in: $0, from: 0) }.map { $0..<($0 + stamp.count) }
                fleet.append(ProbeRecord(isFix: isFix, key: key, value: value,
                                         createdAtRange: range.flatMap { value[$0].elementsEqual(stamp) ? $0 : nil }))
            }
            records.removeAll(keepingCapacity: true)
        }
        return fleet
    }

    /// The event time of a live event (neither `replayed` nor `late`), read from the top of its JSON
    /// without decoding the rest: the probe reads every event while the pipeline runs beside it.
    static func liveEventTime(_ value: [UInt8]) -> UnixMillis? {
        value.withUnsafeBytes { json -> UnixMillis? in
            guard let created = find("\"createdAt\":\"", in: json, from: 0),
                let user = find(",\"user\":", in: json, from: created)
            else { return nil }
            let head = UnsafeRawBufferPointer(rebasing: json[created..<user])
            guard find(",\"replayed\":true", in: head, from: 0) == nil, find(",\"late\":true", in: head, from: 0) == nil,
                case let .success(time) = RFC3339.parse(UnsafeRawBufferPointer(rebasing: json[created..<min(created + 24, user)]))
            else { return nil }
            return time
        }
    }

    /// The index just past the first `pattern` in `bytes` at or after `start` (a plain loop: the
    /// standard library's generic `firstRange(of:)` made the probe's reader fall seconds behind).
    private static func find(_ pattern: StaticString, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        let needle = UnsafeRawBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount)
        guard needle.count > 0, bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        for index in start...(bytes.count - needle.count) where bytes[index] == needle[0] {
            if memcmp(bytes.baseAddress! + index, needle.baseAddress!, needle.count) == 0 { return index + needle.count }
        }
        return nil
    }
}

/// A `StreamRuntime` on its own thread, for the pipeline benchmark.
final class PipelineInstance: @unchecked Sendable {
    // Safe: `stopFlag` is atomic; the runtime thread owns the runtime; `done` orders the end.
    let metrics = RuntimeMetrics()
    private let stopFlag = StopFlag()
    private let done = DispatchSemaphore(value: 0)

    init(cluster: MockCluster, state: String, instance: String, threads: Int) {
        var options = RuntimeOptions(kafka: cluster.clientConfiguration, stateDirectory: state, instanceId: instance)
        options.group = "pipeline-bench"
        options.threads = threads
        let frozen = options
        let thread = Thread { [metrics, stopFlag, done] in
            do {
                let runtime = StreamRuntime(options: frozen, metrics: metrics,
                                            log: { _ in },
                                            shouldStop: { stopFlag.isSet })
                try runtime.run()
            } catch {
                Terminal.error("pipeline runtime failed: \(error)")
            }
            done.signal()
        }
        thread.start()
    }

    /// Inputs per second from the first fold round that had records (group join and restore
    /// excluded) to the commit of the last input. Not from the first commit: a slow first commit
    /// may hold most inputs, and would leave nothing to time.
    func measureThroughput(expected: Int) -> (inputs: Int, seconds: Double) {
        var start: Double?
        let deadline = WallClock.monotonic() + 600
        while WallClock.monotonic() < deadline {
            let values = metrics.snapshot
            if start == nil, values.foldBatchSeconds.count > 0 { start = WallClock.monotonic() }
            if values.inputsCommitted >= expected { break }
            Thread.sleep(forTimeInterval: 0.001)
        }
        let end = WallClock.monotonic()
        guard let start else { return (0, 1) }
        return (min(metrics.snapshot.inputsCommitted, expected), max(end - start, 1e-6))
    }

    /// What the restores read and how long they took, summed over the partitions (restored side by
    /// side on the fold threads: seconds of a thread, not of the clock).
    func waitForRestore(partitions: Int) -> (records: Int, bytes: Int, seconds: Double) {
        let deadline = WallClock.monotonic() + 300
        while WallClock.monotonic() < deadline {
            let values = metrics.snapshot
            if values.ownedPartitions == partitions, values.restoresInProgress == 0 {
                return (values.restoredRecords, values.restoredBytes, values.restoreSeconds)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let values = metrics.snapshot
        return (values.restoredRecords, values.restoredBytes, values.restoreSeconds)
    }

    func stop() {
        stopFlag.set()
        done.wait()
    }
}

/// A stop request shared with a thread.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}
