#if canImport(FoundationEssentials)
    import struct FoundationEssentials.Data
    import struct FoundationEssentials.URL
#else
    import struct Foundation.Data
    import struct Foundation.URL
#endif

// MARK: - Java-style .properties files

extension KafkaConfiguration {
    /// Loads a Kafka-style `.properties` file, as passed to `kafka-console-producer --producer.config`.
    ///
    /// Accepted: `key=value` or `key: value` (the first `=` or `:` separates), whitespace around keys and values
    /// trimmed, blank lines, comment lines starting with `#` or `!`, and a trailing `\` continuing a value on the next
    /// line. Unicode escapes and `key value` lines are not supported: they are rare in client configs and a clear
    /// error beats a silent misreading.
    ///
    /// - Parameter propertiesFile: A file path.
    /// - Throws: ``PropertiesFileError`` naming the file and the 1-based line of the first bad line, or the read
    ///   failure.
    public static func load(propertiesFile path: String) throws(PropertiesFileError) -> KafkaConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw PropertiesFileError(file: path, line: 0, reason: "cannot read file: \(error)")
        }
        return try parse(properties: String(decoding: data, as: UTF8.self), file: path)
    }

    /// Parses `.properties` text; `file` only names the source in errors. See ``load(propertiesFile:)``.
    public static func parse(properties text: String, file: String = "<string>") throws(PropertiesFileError)
        -> KafkaConfiguration
    {
        var configuration = KafkaConfiguration()
        var pending = ""  // a logical line being continued with trailing backslashes
        var pendingStart = 0
        // `isNewline` also matches "\r\n", which Swift treats as one Character, so Windows files work too.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, rawLine) in lines.enumerated() {
            let lineNumber = index + 1
            var line = trimmed(Substring(rawLine))
            if pending.isEmpty {
                if line.isEmpty || line.hasPrefix("#") || line.hasPrefix("!") { continue }
                pendingStart = lineNumber
            }
            let continues = line.hasSuffix("\\")
            if continues { line.removeLast() }
            pending += line
            if continues { continue }
            try configuration.add(line: pending, file: file, lineNumber: pendingStart)
            pending = ""
        }
        if !pending.isEmpty {
            try configuration.add(line: pending, file: file, lineNumber: pendingStart)
        }
        return configuration
    }

    private mutating func add(line: String, file: String, lineNumber: Int) throws(PropertiesFileError) {
        guard let separator = line.firstIndex(where: { $0 == "=" || $0 == ":" }) else {
            throw PropertiesFileError(file: file, line: lineNumber, reason: "expected key=value")
        }
        let key = Self.trimmed(line[..<separator])
        let value = Self.trimmed(line[line.index(after: separator)...])
        guard !key.isEmpty else {
            throw PropertiesFileError(file: file, line: lineNumber, reason: "empty key")
        }
        guard !key.contains(where: \.isWhitespace) else {
            throw PropertiesFileError(file: file, line: lineNumber, reason: "key contains whitespace")
        }
        self[key] = value
    }

    private static func trimmed(_ text: Substring) -> String {
        var text = text
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
