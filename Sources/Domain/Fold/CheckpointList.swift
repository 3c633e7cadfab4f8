/// Up to eight ETA learning checkpoints stored inline: a trip keeps them in its state (copied for
/// each checkpoint of the user's history), so a heap array would cost an allocation and a header
/// per copy.
public struct CheckpointList: Sendable, Equatable, RandomAccessCollection {
    public static let capacity = 8
    private var storage: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    public private(set) var count: UInt8 = 0

    public init() {}

    public var startIndex: Int { 0 }
    public var endIndex: Int { Int(count) }

    public subscript(index: Int) -> TripProgress.Checkpoint {
        precondition(index >= 0 && index < Int(count), "checkpoint index out of range")
        let packed = withUnsafeBytes(of: storage) { $0.load(fromByteOffset: index * 8, as: UInt64.self) }
        return TripProgress.Checkpoint(
            elapsedSeconds: Int32(truncatingIfNeeded: Int64(bitPattern: packed >> 32)),
            halfLogDistance: Float(bitPattern: UInt32(truncatingIfNeeded: packed)))
    }

    public mutating func append(_ checkpoint: TripProgress.Checkpoint) {
        precondition(Int(count) < Self.capacity, "checkpoint list is full")
        let packed = UInt64(UInt32(bitPattern: checkpoint.elapsedSeconds)) << 32
            | UInt64(checkpoint.halfLogDistance.bitPattern)
        let index = Int(count)
        withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: packed, toByteOffset: index * 8, as: UInt64.self) }
        count += 1
    }

    /// Keeps every other checkpoint (0, 2, 4, …).
    public mutating func thin() {
        let kept = stride(from: 0, to: Int(count), by: 2).map { self[$0] }
        self = CheckpointList()
        for checkpoint in kept { append(checkpoint) }
    }

    public static func == (lhs: CheckpointList, rhs: CheckpointList) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }
}
