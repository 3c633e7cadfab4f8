import Codec
import Domain
import LZ4IO

/// A geofences file loaded into a table with its lines decoded on another thread, a batch ahead of
/// the calling thread, which indexes them. Decoding was about 40% of a load (35–50 ms for a dense
/// city's 10,000 geofences, half a second for 100,000), all of it before a replay's first fix.
///
/// The table, the dead letters and the counters are those of a load on one thread
/// (`InputProcessor.processGeofence` per line): lines are decoded, and their changes applied, in file order.
final class GeofenceFileLoad: @unchecked Sendable {
    // Safe: `reader`, `batch`, `decoded`, `hasLines`, `processor` and `output` are touched by the decode
    // thread only in the job `decodeNext` submits, and by the calling thread only after the `wait`
    // that ends it (`SerialJobThread`'s contract).
    private let reader: LineReader
    private var batch = LineBatch()
    private var decoded: [GeofenceChange] = []
    private var hasLines = true
    private var processor: InputProcessor
    private var output: OutputBatch
    private let decoder: SerialJobThread

    private init(path: String, processor: InputProcessor, output: OutputBatch, decoder: SerialJobThread) throws {
        reader = try LineReader(path: path, chunkSize: Self.chunkSize)
        self.processor = processor
        self.output = output
        self.decoder = decoder
    }

    /// Bytes of the file decoded per job: small enough that the first batch, which the calling thread
    /// waits for, is short, and that a city's file of a few megabytes is still several batches.
    static let chunkSize = 256 << 10

    /// The table of the geofences file at `path`, its lines decoded by jobs on `decoder` (which must
    /// have none in flight that touches `processor` or `output`).
    static func load(_ path: String, processor: inout InputProcessor, output: inout OutputBatch,
                     decodingOn decoder: SerialJobThread) throws -> GeofenceTable
    {
        // The processor and the output are the decode thread's until the load ends.
        let load = try GeofenceFileLoad(path: path, processor: processor, output: output, decoder: decoder)
        defer {
            try? decoder.wait()
            processor = load.processor
            output = load.output
        }
        var geofences = GeofenceTable()
        var applying: [GeofenceChange] = []
        try load.decodeNext()
        try geofences.loadingInBulk { geofences in
            while true {
                try decoder.wait()
                guard load.hasLines else { break }
                swap(&applying, &load.decoded)
                try load.decodeNext()
                for change in applying { geofences.apply(change) }
                // Emptied here, it goes back to the decode thread at the next swap.
                applying.removeAll(keepingCapacity: true)
            }
        }
        return geofences
    }

    /// Starts decoding the next batch of lines into `decoded` (empty: swapped with the applied batch) on
    /// the decode thread.
    private func decodeNext() throws {
        try decoder.submit { [self] in
            hasLines = try reader.nextBatch(into: &batch)
            guard hasLines else { return }
            ReplayJob.forEachLine(of: batch, topic: ReplayJob.geofencesTopic, processor: &processor, output: &output) {
                line, bytes, processor, output in
                let source = RecordSource(topic: ReplayJob.geofencesTopic, partition: 0, offset: Int64(line))
                if let change = processor.decodeGeofence(key: nil, value: bytes, source: source, processingTime: nil,
                                                         into: &output)
                {
                    decoded.append(change)
                }
            }
        }
    }
}
