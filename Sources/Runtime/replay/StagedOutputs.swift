import class Foundation.FileManager
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A run's output files, written under hidden names beside their final ones (`DIR/.events.ndjson.incomplete`)
/// and renamed into place only once every one of them is complete: a run that fails or is stopped leaves the
/// previous run's files as they were, and removes its own unfinished ones, so nothing half-written is ever
/// under a name a later tool reads as output.
///
/// Until ``publish()`` the temporary names are listed in ``UnfinishedOutputs``, which a termination signal's
/// handler empties (`tripstream replay` installs one); a run that throws removes them when this object goes.
public final class StagedOutputs {
    /// The final names, in the order given.
    public let paths: [String]
    /// Where each is written until published.
    public let temporaryPaths: [String]
    private var settled = false

    public init(paths: [String]) {
        self.paths = paths
        temporaryPaths = paths.map(Self.temporaryPath)
        for path in temporaryPaths { UnfinishedOutputs.register(path) }
    }

    /// `DIR/.NAME.incomplete` for `DIR/NAME`: hidden, and named for what it is.
    public static func temporaryPath(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return ".\(path).incomplete" }
        return path[...slash] + "." + path[path.index(after: slash)...] + ".incomplete"
    }

    /// Renames every temporary file to its final name (the files must be closed).
    public func publish() throws {
        for (temporary, path) in zip(temporaryPaths, paths) {
            guard rename(temporary, path) == 0 else {
                let reason = String(cString: strerror(errno))
                discard()
                throw ReplayError("cannot rename \(temporary) to \(path): \(reason)")
            }
            UnfinishedOutputs.unregister(temporary)
        }
        settled = true
    }

    /// Removes the temporary files that were not published; the final names are left alone.
    public func discard() {
        for temporary in temporaryPaths where UnfinishedOutputs.unregister(temporary) { unlink(temporary) }
        settled = true
    }

    deinit {
        if !settled { discard() }
    }
}

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
    /// handler (it allocates): for a thread the handler wakes.
    public static func removeScratch() {
        let manager = FileManager.default
        for (directory, prefix) in scratch.withLock({ $0 }) {
            for entry in (try? manager.contentsOfDirectory(atPath: directory)) ?? [] where entry.hasPrefix(prefix) {
                try? manager.removeItem(atPath: directory + "/" + entry)
            }
            rmdir(directory)
        }
    }

    /// Makes the table ready before a signal handler may read it.
    public static func prepare() { _ = slots }

    private static func withLock<T>(_ body: () -> T) -> T {
        lock.withLock { _ in body() }
    }
}
