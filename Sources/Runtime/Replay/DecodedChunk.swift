import Codec
import Domain
import LZ4IO

/// What one worker decoded of a block of fix lines: its contiguous share of the block, sorted
/// into partitions by userId, each partition's lines in file order.
///
/// A line whose userId cannot be read (it does not decode, or the reader skipped it for its
/// length) goes to partition 0: a file has no record key, so its dead letter lands in one fixed place.
final class DecodedChunk: @unchecked Sendable {
    // Safe: written only by the worker that owns this chunk, during the decode fork; read by the
    // fold fork after the join, never written then. Hence no run-time exclusivity check per line.
    @exclusivity(unchecked) private(set) var byPartition: [[ReplayLine]]

    init(partitions: Int) {
        byPartition = Array(repeating: [], count: partitions)
    }

    /// Decodes the lines `range` of `batch` and the too-long lines numbered within `numbers`.
    func decode(_ batch: LineBatch, lines range: Range<Int>, tooLongIn numbers: Range<Int>,
                partitioner: KeyPartitioner)
    {
        for index in byPartition.indices { byPartition[index].removeAll(keepingCapacity: true) }
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        var skipped = batch.linesTooLong.drop { !numbers.contains($0.lineNumber) }.prefix { numbers.contains($0.lineNumber) }
        for index in range {
            let line = batch[index]
            while let long = skipped.first, long.lineNumber < line.number {
                byPartition[0].append(ReplayLine(content: .tooLong(long), bytes: empty, number: long.lineNumber))
                skipped = skipped.dropFirst()
            }
            do {
                let fix = try FixDecoder.decode(line.bytes)
                byPartition[partitioner.partition(ofUser: fix.userId)].append(
                    ReplayLine(content: .fix(fix), bytes: line.bytes, number: line.number))
            } catch {
                byPartition[0].append(ReplayLine(content: .invalid(error), bytes: line.bytes, number: line.number))
            }
        }
        for long in skipped {
            byPartition[0].append(ReplayLine(content: .tooLong(long), bytes: empty, number: long.lineNumber))
        }
    }
}
