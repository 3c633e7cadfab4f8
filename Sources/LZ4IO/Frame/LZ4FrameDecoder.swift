import CLZ4

/// Streaming decompression of LZ4 frames (one or several concatenated) pulled from a byte source.
///
/// Owns the `LZ4F_dctx` and a compressed-input buffer; both are released in `deinit`.
final class LZ4FrameDecoder {
    private let context: OpaquePointer
    private let input: UnsafeMutableRawPointer
    private let inputCapacity: Int
    private var inputStart = 0
    private var inputEnd = 0
    private var sourceExhausted = false
    /// `true` until liblz4 reports a frame complete; starts `true` because the caller saw the magic number.
    private var insideFrame = true
    private let path: String?

    /// - Parameters:
    ///   - initialInput: bytes already read from the source (e.g. while sniffing the magic number).
    ///   - inputCapacity: size of each read from the source.
    init(initialInput: UnsafeRawBufferPointer, inputCapacity: Int, path: String?) {
        var context: OpaquePointer?
        let status = LZ4F_createDecompressionContext(&context, UInt32(LZ4F_VERSION))
        // Fails only on allocation failure or a header/library mismatch: nothing a caller could handle.
        precondition(LZ4F_isError(status) == 0 && context != nil, "LZ4F_createDecompressionContext failed")
        self.context = context!
        self.inputCapacity = max(inputCapacity, initialInput.count)
        self.input = .allocate(byteCount: self.inputCapacity, alignment: 16)
        if let base = initialInput.baseAddress, !initialInput.isEmpty {
            input.copyMemory(from: base, byteCount: initialInput.count)
        }
        self.inputEnd = initialInput.count
        self.path = path
    }

    deinit {
        LZ4F_freeDecompressionContext(context)
        input.deallocate()
    }

    /// Decompresses into `destination`, reading more input through `readSource` when needed.
    /// - Parameter readSource: fills the buffer it is given and returns the byte count, 0 at end of input.
    /// - Returns: bytes written into `destination`; 0 only at the clean end of the last frame.
    /// - Throws: `corruptFrame` for invalid data, `truncatedFrame` when the input ends inside a frame.
    func decompress(
        into destination: UnsafeMutableRawBufferPointer,
        readSource: (UnsafeMutableRawBufferPointer) throws(LZ4IOError) -> Int
    ) throws(LZ4IOError) -> Int {
        while true {
            if inputStart == inputEnd, !sourceExhausted {
                let count = try readSource(UnsafeMutableRawBufferPointer(start: input, count: inputCapacity))
                (inputStart, inputEnd) = (0, count)
                sourceExhausted = count == 0
            }
            let noInput = inputStart == inputEnd
            if noInput, !insideFrame { return 0 }
            // Called even without input: liblz4 may still hold decoded bytes that did not fit the last destination.
            var produced = destination.count
            var consumed = inputEnd - inputStart
            let hint = LZ4F_decompress(
                context, destination.baseAddress, &produced, input + inputStart, &consumed, nil)
            if LZ4F_isError(hint) != 0 {
                throw LZ4IOError(.corruptFrame(String(cString: LZ4F_getErrorName(hint))), path: path)
            }
            inputStart += consumed
            insideFrame = hint != 0
            if produced > 0 { return produced }
            if noInput, insideFrame { throw LZ4IOError(.truncatedFrame, path: path) }
        }
    }
}
