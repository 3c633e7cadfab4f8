// MARK: - RandomAccessCollection

extension LineBatch: RandomAccessCollection {
    /// Index of the first line.
    public var startIndex: Int { 0 }
    /// One past the last line.
    public var endIndex: Int { entries.count }

    /// The line at `position`.
    public subscript(position: Int) -> Line {
        let entry = entries[position]
        return Line(
            bytes: UnsafeRawBufferPointer(start: base! + entry.offset, count: entry.length), number: entry.number)
    }
}
