import class Foundation.FileManager
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The temporary output files of the runs in progress in this process, for a signal handler to remove
/// (``removeAll()``, async-signal-safe: it only reads a fixed table and calls `unlink(2)`).
public enum UnfinishedOutputs {
    private static let capacity = 64
    /// A fixed table of C strings, read by a signal handler at any moment: never reallocated, and a name
    /// taken out of it is not freed (a handler may be reading it), a few bytes per output file per run.
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let slots = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        slots.initialize(repeating: nil, count: capacity)
        return slots
    }()
    private static let lock = Mutex(())

    static func register(_ path: String) {
        _ = slots
        withLock {
            guard let free = (0..<capacity).first(where: { slots[$0] == nil }) else { return }
            slots[free] = strdup(path)
        }
    }

    /// Takes `path` out of the table; false when it was not in it.
    @discardableResult
    static func unregister(_ path: String) -> Bool {
        withLock {
            guard let index = (0..<capacity).first(where: { slots[$0].map { String(cString: $0) == path } ?? false })
            else { return false }
            slots[index] = nil
            return true
        }
    }

    /// The files listed now (for tests: `removeAll()` would remove other runs' files of the process too).
    static var registeredPaths: [String] {
        withLock { (0..<capacity).compactMap { slots[$0].map { String(cString: $0) } } }
    }

    /// Unlinks every file listed; for a termination signal's handler.
    public static func removeAll() {
        for index in 0..<capacity {
            if let path = slots[index] { unlink(path) }
        }
    }

    /// The scratch of the runs in progress (history stores, spools): a directory and the prefix of the entries a
    /// run makes in it, which may be the user's `--state-dir`.
    private static let scratch = Mutex<[(directory: String, prefix: String)]>([])

    public static func registerScratch(_ directory: String, entriesStartingWith prefix: String) {
        scratch.withLock { $0.append((directory, prefix)) }
    }

    public static func unregisterScratch(_ directory: String) {
        scratch.withLock { $0.removeAll { $0.directory == directory } }
    }

    /// Removes the runs' scratch entries, then their directories if that left them empty. Not for a signal
    /// handler (it allocates): for a thread the handler wakes. The runs' threads go on meanwhile and may
    /// still be creating their stores: it looks again until the directory is gone, for at most a second.
    public static func removeScratch() {
        let manager = FileManager.default
        for (directory, prefix) in scratch.withLock({ $0 }) {
            for _ in 0..<20 {
                let entries = ((try? manager.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix(prefix) }
                if entries.isEmpty {
                    rmdir(directory)  // only if nothing else is there (a --state-dir of the user's)
                    break
                }
                for entry in entries { try? manager.removeItem(atPath: directory + "/" + entry) }
                usleep(50_000)
            }
        }
    }

    /// Makes the table ready before a signal handler may read it.
    public static func prepare() { _ = slots }

    private static func withLock<T>(_ body: () -> T) -> T {
        lock.withLock { _ in body() }
    }
}
