import struct Foundation.URL
import class Foundation.FileManager

#if canImport(Glibc)
import Glibc
#endif

/// The archive on disk: where each partition resumes, the removal of a crash's leftovers, and the lock that keeps
/// a second archiver out of the same directory.
struct ArchiveDirectory {
    let root: String
    private var lockDescriptor: Int32 = -1

    /// Creates `root` if missing and takes its lock (`root/.lock`, `flock`, held until ``unlock()`` or exit).
    /// - Throws: ``LocalFileError`` when another process holds the lock or the directory cannot be made.
    init(root: String) throws {
        self.root = root
        try ReplayJob.makeDirectory(root)
        let descriptor = open(root + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw LocalFileError.cannotOpen(root + "/.lock", reason: LocalFileError.systemReason) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(descriptor)
            throw LocalFileError.inUse(root, lock: root + "/.lock")
        }
        lockDescriptor = descriptor
    }

    /// Releases the lock.
    mutating func unlock() {
        guard lockDescriptor >= 0 else { return }
        Glibc.close(lockDescriptor)  // closing the descriptor releases the flock
        lockDescriptor = -1
    }

    /// Deletes unfinished (temporary) files under `folder` and returns, per partition, the next offset after the
    /// last finished file: where it resumes. Records of a deleted temporary file are read again.
    func recover(folder: String, log: (String) -> Void) throws -> [Int32: Int64] {
        var resume: [Int32: Int64] = [:]
        let base = root + "/" + folder
        let files = FileManager.default
        guard let dates = try? files.contentsOfDirectory(atPath: base) else { return [:] }
        for date in dates where date.hasPrefix("date=") {
            let directory = base + "/" + date
            for name in (try? files.contentsOfDirectory(atPath: directory)) ?? [] {
                if name.hasPrefix(ArchiveFileName.temporaryPrefix), name.hasSuffix(ArchiveFileName.temporarySuffix) {
                    guard unlink(directory + "/" + name) == 0 else {
                        throw LocalFileError.cannotDelete(directory + "/" + name, reason: LocalFileError.systemReason)
                    }
                    log("archive: deleted unfinished \(folder)/\(date)/\(name); its records are read again")
                } else if let file = ArchiveFileName(parsing: name) {
                    resume[file.partition] = max(resume[file.partition] ?? 0, file.nextOffset)
                }
            }
        }
        return resume
    }

    /// Makes a rename or removal in `directory` durable.
    static func synchronize(directory: String) throws {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw LocalFileError.cannotOpen(directory, reason: LocalFileError.systemReason) }
        defer { Glibc.close(descriptor) }
        guard fsync(descriptor) == 0 else { throw LocalFileError.cannotSync(directory, reason: LocalFileError.systemReason) }
    }
}
