/// The order of a file replay's outputs, fixed by line numbers alone: the fixes file is cut into sections of
/// `linesPerSection` lines, and each output file holds section after section, each section's outputs partition
/// after partition. So the files are the same bytes whatever the size of the blocks the file is read and folded
/// in, and whatever the number of threads.
///
/// One value per partition: where each section starts in the partition's output batch.
struct OutputSections {
    /// Lines per section. A block's outputs are held until its sections are complete: at 4,096 a dense city's
    /// replay held three blocks of events (136 MB at its peak against 98 MB, and 15–30% slower on 2 threads);
    /// at 1,024 about one more than before (125 MB), and as fast as before (`replay --threads 2`, 200,000 fixes).
    static let linesPerSection = 1024
    /// The section of what is folded after the last line (`ReplayPartition.finish`).
    static let end = Int.max - 1

    /// The outputs of one section in one batch.
    struct Piece {
        var section: Int
        var from: OutputBatch.Mark
        var to: OutputBatch.Mark
    }

    /// The section the batch starts in, and each later section with where it starts.
    private var first = 0
    private var starts: [(section: Int, mark: OutputBatch.Mark)] = []
    private var current = 0

    /// Before the outputs of line `number`; `mark`, the batch's end, is asked only when a section begins.
    @inline(__always)
    mutating func enter(line number: Int, at mark: @autoclosure () -> OutputBatch.Mark) {
        let section = number / Self.linesPerSection
        if section != current { enter(section: section, at: mark()) }
    }

    mutating func enter(section: Int, at mark: OutputBatch.Mark) {
        guard section != current else { return }
        starts.append((section, mark))
        current = section
    }

    /// The pieces of the batch, which ends at `end`, in order; afterwards this value describes the next batch,
    /// which starts in the current section.
    mutating func takePieces(end: OutputBatch.Mark) -> [Piece] {
        let all = [(section: first, mark: OutputBatch.Mark())] + starts
        var pieces: [Piece] = []
        for (index, entry) in all.enumerated() {
            let to = index + 1 < all.count ? all[index + 1].mark : end
            if entry.mark != to { pieces.append(Piece(section: entry.section, from: entry.mark, to: to)) }
        }
        first = current
        starts = []
        return pieces
    }
}
