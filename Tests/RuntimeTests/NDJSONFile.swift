import LZ4IO

/// Input files for replays in tests.
enum NDJSONFile {
    /// Writes `lines`, each followed by a newline, to `path`; returns `path`.
    @discardableResult
    static func write(_ lines: [[UInt8]], to path: String) throws -> String {
        let writer = try FileWriter(path: path)
        for line in lines {
            try writer.write(line)
            try writer.write(byte: UInt8(ascii: "\n"))
        }
        try writer.close()
        return path
    }
}
