#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `--config FILE` format: one `key = value` per line, keys are long option names without `--`.
///
/// ```
/// # Comments start with '#' or ';'; blank lines are ignored.
/// brokers = kafka-1:9092,kafka-2:9092
/// verbose = true
/// input = a.ndjson      # not a comment: everything after '=' is the value
/// input = "b.ndjson"    # surrounding quotes are removed; a repeatable key may appear several times
/// ```
public enum ConfigFile {
    /// Reads the whole file as UTF-8; the default file reader of `parse(arguments:environment:readFile:)`.
    /// - Throws: `unreadableConfigFile` with the system's reason (e.g. "No such file or directory").
    public static func readContents(atPath path: String) throws(CommandLineError) -> String {
        guard let file = fopen(path, "r") else {
            throw CommandLineError(.unreadableConfigFile(path: path, reason: String(cString: strerror(errno))))
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            bytes.append(contentsOf: chunk[0..<count])
            if count < chunk.count {
                if ferror(file) != 0 {
                    throw CommandLineError(.unreadableConfigFile(path: path, reason: String(cString: strerror(errno))))
                }
                break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses `contents` into raw values per long option name, rejecting keys `command` does not declare.
    static func values(
        in contents: String, path: String, command: CommandSpec
    ) throws(CommandLineError) -> [String: [ArgumentValue]] {
        var values: [String: [ArgumentValue]] = [:]
        let validKeys = command.options.filter { !$0.isConfigFile }.map(\.longName)
        for (index, rawLine) in contents.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let source = ValueSource.configFile(path: path, line: index + 1)
            let line = ValueText.trimmed(rawLine)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw CommandLineError(.malformedConfigLine(line), source: source)
            }
            let key = ValueText.trimmed(line[..<equals])
            let value = unquoted(ValueText.trimmed(line[line.index(after: equals)...]))
            guard validKeys.contains(key) else {
                let suggestion = Suggestion.closest(to: key, among: validKeys)
                throw CommandLineError(.unknownConfigKey(key, suggestion: suggestion), source: source)
            }
            values[key, default: []].append(ArgumentValue(text: value, source: source))
        }
        return values
    }

    private static func unquoted(_ text: String) -> String {
        guard text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first else {
            return text
        }
        return String(text.dropFirst().dropLast())
    }
}
