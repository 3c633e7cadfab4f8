import Foundation

/// The bench's work directory. What a run made there (workload files, outputs, history stores: gigabytes at
/// the full sizes) is removed when it ends, unless `--keep`; what was there before is left alone.
struct BenchWorkFiles {
    let directory: String
    /// The entries present at start; nil when the directory did not exist (it is then removed whole).
    private let before: Set<String>?

    init(directory: String) {
        self.directory = directory
        before = (try? FileManager.default.contentsOfDirectory(atPath: directory)).map(Set.init)
    }

    /// `$TMPDIR/tripstream-bench-PID`: a fresh directory of this run's own.
    static var defaultDirectory: String {
        NSTemporaryDirectory() + "tripstream-bench-\(ProcessInfo.processInfo.processIdentifier)"
    }

    func removeCreated() {
        let manager = FileManager.default
        guard let before else {
            try? manager.removeItem(atPath: directory)
            return
        }
        for entry in (try? manager.contentsOfDirectory(atPath: directory)) ?? [] where !before.contains(entry) {
            try? manager.removeItem(atPath: directory + "/" + entry)
        }
    }
}
