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
                throw LocalFileError.cannotRename(temporary, to: path, reason: reason)
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
