import CLZ4

/// Whole-buffer LZ4 frame compression, e.g. for state snapshots. Frames carry a content checksum and the content
/// size, and are readable by the `lz4` command-line tool.
public enum LZ4Frame {
    /// The four bytes every LZ4 frame starts with, little-endian `0x184D2204`.
    public static let magicNumber: UInt32 = 0x184D_2204

    /// Whether `bytes` start with an LZ4 frame (or a skippable frame, `0x184D2A50...5F`).
    public static func hasMagicNumber(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 4 else { return false }
        let value = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
        return value == magicNumber || value & 0xFFFF_FFF0 == 0x184D_2A50
    }

    /// Compresses `bytes` into one LZ4 frame.
    /// - Parameter level: 0 (default) is the fast mode; 3...12 select the slower, denser HC mode.
    public static func compress(_ bytes: [UInt8], level: Int32 = 0) -> [UInt8] {
        var preferences = LZ4F_preferences_t()
        preferences.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled
        preferences.frameInfo.contentSize = UInt64(bytes.count)
        preferences.compressionLevel = level
        let bound = LZ4F_compressFrameBound(bytes.count, &preferences)
        return bytes.withUnsafeBytes { source in
            [UInt8](unsafeUninitializedCapacity: bound) { output, count in
                let result = LZ4F_compressFrame(
                    output.baseAddress, bound, source.baseAddress, source.count, &preferences)
                // With a destination of LZ4F_compressFrameBound bytes, liblz4 documents that this cannot fail.
                precondition(LZ4F_isError(result) == 0, String(cString: LZ4F_getErrorName(result)))
                count = result
            }
        }
    }

    /// Decompresses one or more concatenated LZ4 frames.
    /// - Throws: `LZ4IOError` with `path == nil`: `corruptFrame` (liblz4's error name) or `truncatedFrame`.
    public static func decompress(_ bytes: [UInt8]) throws(LZ4IOError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 3)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { scratch.deallocate() }
        // The decoder copies its input once; for snapshots (a few MiB) that is cheaper than a second code path.
        let decoder = bytes.withUnsafeBytes { source in
            LZ4FrameDecoder(initialInput: source, inputCapacity: source.count, path: nil)
        }
        while true {
            let count = try decoder.decompress(into: scratch) { _ throws(LZ4IOError) in 0 }
            if count == 0 { return output }
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        }
    }
}
