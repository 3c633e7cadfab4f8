import HTTPServing
import Synchronization
import Testing

@testable import Console

/// Records what a stream writes; refuses writes after `accepting` of them, as a client that left.
final class RecordingWriter: StreamWriter {
    let writes = Mutex<[String]>([])
    let accepting: Int
    init(accepting: Int) { self.accepting = accepting }

    func write(_ bytes: [UInt8]) -> Bool {
        writes.withLock { writes in
            writes.append(String(decoding: bytes, as: UTF8.self))
            return writes.count <= accepting
        }
    }
}

@Suite struct LiveHubTests {
    @Test func aReconnectingPageGetsWhatItMissed() throws {
        let hub = LiveHub()
        for sequence in 1...5 { hub.publish(Array("{\"n\":\(sequence)}".utf8), sequence: Int64(sequence)) }
        let stream = try #require(hub.stream(after: 3))
        let writer = RecordingWriter(accepting: 1)  // takes the retry line, then leaves at the first delta
        stream(writer)
        let written = writer.writes.withLock { $0 }
        #expect(written.count == 2)
        #expect(written[1] == "id: 4\nevent: delta\ndata: {\"n\":4}\n\nid: 5\nevent: delta\ndata: {\"n\":5}\n\n")
        #expect(hub.streamCount == 0)
    }

    @Test func aPageThatMissedTooMuchIsReset() throws {
        let hub = LiveHub()
        for sequence in 1...(LiveHub.retainedDeltas + 10) { hub.publish([], sequence: Int64(sequence)) }
        let stream = try #require(hub.stream(after: 2))
        let writer = RecordingWriter(accepting: 10)
        stream(writer)
        #expect(writer.writes.withLock { $0 }.last == "event: reset\ndata: {}\n\n")
    }

    @Test func aSlowPageIsResetAndNeverBlocksThePublisher() throws {
        let hub = LiveHub()
        let stream = try #require(hub.stream(after: nil))
        // Nobody reads: the publisher goes on, past the queue's limit.
        let big = [UInt8](repeating: 65, count: 1 << 20)
        for sequence in 1...(LiveHub.maximumQueuedBytes >> 20) + 2 { hub.publish(big, sequence: Int64(sequence)) }
        let writer = RecordingWriter(accepting: 10)
        stream(writer)
        let written = writer.writes.withLock { $0 }
        #expect(written == ["retry: 1000\n\n", "event: reset\ndata: {}\n\n"])  // the queue was dropped for a reset
    }

    @Test func streamsAreBounded() {
        let hub = LiveHub(maximumStreams: 2)
        let first = hub.stream(after: nil)
        let second = hub.stream(after: nil)
        #expect(first != nil && second != nil)
        #expect(hub.stream(after: nil) == nil)
    }
}
