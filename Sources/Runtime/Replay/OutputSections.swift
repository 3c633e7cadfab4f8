/// The order of a file replay's outputs, fixed by line numbers alone: the fixes file is cut into sections of
/// `linesPerSection` lines, and each output file holds section after section, each section's outputs partition
/// after partition. So the files are the same bytes whatever the size of the blocks the file is read and folded
/// in, and whatever the number of threads.
///
/// One value per partition: where each section starts in the partition's output batch.
struct OutputSections {
    static let linesPerSection = 4096
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

    /// Splits the batch, which ends at `end`: the pieces of the sections before `open` (complete: no line of
    /// theirs is left to fold), in order, and where the rest starts. The rest is what this value describes
    /// afterwards, as a batch of its own (moved to the start of the next one).
    mutating func split(before open: Int, end: OutputBatch.Mark) -> (complete: [Piece], rest: OutputBatch.Mark) {
        let all = [(section: first, mark: OutputBatch.Mark())] + starts
        var complete: [Piece] = []
        var restIndex = all.count
        for (index, entry) in all.enumerated() {
            guard entry.section < open else {
                restIndex = index
                break
            }
            complete.append(Piece(section: entry.section, from: entry.mark,
                                  to: index + 1 < all.count ? all[index + 1].mark : end))
        }
        guard restIndex < all.count else {
            first = current
            starts = []
            return (complete, end)
        }
        let rest = all[restIndex].mark
        first = all[restIndex].section
        starts = all[(restIndex + 1)...].map { ($0.section, $0.mark.after(rest)) }
        return (complete, rest)
    }
}

extension OutputBatch.Mark {
    /// This place counted from `start` instead of the batch's beginning.
    func after(_ start: OutputBatch.Mark) -> OutputBatch.Mark {
        OutputBatch.Mark(events: events - start.events, eta: eta - start.eta, deadLetters: deadLetters - start.deadLetters,
                         users: users - start.users, tripSummaries: tripSummaries - start.tripSummaries)
    }
}
