/// Greedy word wrapping for help text. Words longer than a line keep a line of their own rather than being split.
enum TextWrapper {
    /// Wraps `text` into lines of at most `width` columns. The first line is indented by `firstIndent` columns, the
    /// following ones by `indent`. A `\n` in `text` starts a new line; a blank line is kept as a paragraph break.
    static func wrap(_ text: String, width: Int, indent: Int, firstIndent: Int? = nil) -> [String] {
        var lines: [String] = []
        var current = String(repeating: " ", count: firstIndent ?? indent)
        var currentHasWords = false
        let continuation = String(repeating: " ", count: indent)
        for (paragraphIndex, paragraph) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if paragraphIndex > 0 {
                lines.append(currentHasWords ? current : "")
                current = continuation
                currentHasWords = false
            }
            for word in paragraph.split(separator: " ") {
                if currentHasWords, current.count + 1 + word.count > width {
                    lines.append(current)
                    current = continuation
                    currentHasWords = false
                }
                current += (currentHasWords ? " " : "") + word
                currentHasWords = true
            }
        }
        if currentHasWords { lines.append(current) }
        return lines
    }

    /// Two aligned columns: labels indented by 2, descriptions starting in one column for all rows. A label wider
    /// than `maxLabelWidth` gets a line of its own and its description starts on the next line.
    static func columns(_ rows: [(label: String, text: String)], width: Int, maxLabelWidth: Int = 30) -> [String] {
        let labelWidth = min(rows.map(\.label.count).max() ?? 0, maxLabelWidth)
        let textColumn = 2 + labelWidth + 2
        var lines: [String] = []
        for row in rows {
            let label = "  " + row.label
            if row.label.count > labelWidth {
                lines.append(label)
                lines += wrap(row.text, width: width, indent: textColumn)
            } else {
                let padded = label + String(repeating: " ", count: textColumn - label.count)
                var wrapped = wrap(row.text, width: width, indent: textColumn)
                if wrapped.isEmpty { wrapped = [padded] }
                wrapped[0] = padded + wrapped[0].dropFirst(textColumn)
                lines += wrapped
            }
        }
        return lines.map { String($0.reversed().drop { $0 == " " }.reversed()) }
    }
}
