import Codec
import Domain
import LZ4IO

/// One line of the fixes file, decoded once, waiting for its partition's fold.
struct ReplayLine {
    enum Content {
        case fix(Fix)
        /// Not a fix: dead-lettered at its turn.
        case invalid(DecodeError)
        /// Skipped by the reader for its length: dead-lettered at its turn.
        case tooLong(LineTooLong)
    }

    var content: Content
    /// The line's bytes, pointing into the reader's buffer: valid until the next block is read.
    var bytes: UnsafeRawBufferPointer
    var number: Int
}
