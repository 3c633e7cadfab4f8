/// A `.properties` file could not be read or has a malformed line.
///
/// The message names the file and line but never the line's content, which may hold a credential.
public struct PropertiesFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file path (or the source name given to ``KafkaConfiguration/parse(properties:file:)``).
    public var file: String
    /// The 1-based line number; 0 when the file could not be read at all.
    public var line: Int
    /// What is wrong.
    public var reason: String

    /// Creates an error.
    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String {
        line > 0 ? "\(file):\(line): \(reason)" : "\(file): \(reason)"
    }
}
