#if canImport(Glibc)
import Glibc
#endif
import CLinuxEvents
import Synchronization

/// What other threads tell the event loop: a handler's response, a stream's new bytes, stop. Each post also
/// writes the loop's eventfd, which wakes its `epoll_wait`.
final class LoopMailbox: Sendable {
    enum Message: Sendable {
        case respond(connection: UInt64, HTTPResponse, keepAlive: Bool, headOnly: Bool)
        case streamReady(connection: UInt64)
        case stop
    }

    private let messages = Mutex<[Message]>([])
    /// The eventfd the loop watches. Closed when the last holder lets go (a handler or stream may outlive the
    /// loop), so no post can write to a descriptor number reused for something else.
    let descriptor: Int32

    init() throws(ServerError) {
        descriptor = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard descriptor >= 0 else { throw .socket(errno: errno) }
    }

    deinit { close(descriptor) }

    func post(_ message: Message) {
        messages.withLock { $0.append(message) }
        var one: UInt64 = 1
        _ = write(descriptor, &one, 8)
    }

    /// Event loop: the messages posted so far, oldest first, and the eventfd reset.
    func takeAll() -> [Message] {
        var count: UInt64 = 0
        _ = read(descriptor, &count, 8)
        return messages.withLock { messages in
            defer { messages = [] }
            return messages
        }
    }
}
