import Synchronization

/// Playback reads, one at a time (each opens a Kafka client and scans a window of the locations topic).
public final class PlaybackSource: Sendable {
    public enum Failure: Error, Equatable {
        case busy
        case kafka
    }

    private let busy = Atomic<Bool>(false)
    private let reader: @Sendable (String, Int64, Int64) throws -> (points: [PlaybackPoint], truncated: Bool)

    public init(reader: @escaping @Sendable (String, Int64, Int64) throws -> (points: [PlaybackPoint], truncated: Bool)) {
        self.reader = reader
    }

    public func read(user: String, from: Int64, to: Int64) -> Result<([PlaybackPoint], Bool), Failure> {
        guard !busy.exchange(true, ordering: .acquiring) else { return .failure(.busy) }
        defer { busy.store(false, ordering: .releasing) }
        guard let result = try? reader(user, from, to) else { return .failure(.kafka) }
        return .success((result.points, result.truncated))
    }
}
