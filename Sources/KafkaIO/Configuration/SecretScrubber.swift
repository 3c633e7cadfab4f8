import Synchronization

/// The secret values handed to librdkafka in this process, so that text coming back from it (log lines, error
/// strings) can be scrubbed before KafkaIO prints it or puts it in a ``KafkaError``.
///
/// librdkafka redacts its own configuration dumps, but some of its messages quote a value: a rejected property
/// ("Invalid value … for configuration property"), a SASL/OAUTHBEARER extension with a bad character, an OpenSSL
/// error about a file. Scrubbing every registered secret (and each `name=value` part of a composite one such as
/// `sasl.jaas.config` or `sasl.oauthbearer.extensions`) makes that safe whatever the message.
enum SecretScrubber {
    /// Values shorter than this are not scrubbed: replacing every `1` or `abc` in a log line would garble it, and
    /// such values are not credentials.
    static let minimumLength = 4

    private static let secrets = Mutex<Set<String>>([])

    /// Remembers the values of `configuration`'s secret properties (see ``KafkaConfiguration/isSecret(key:)``).
    static func register(_ configuration: KafkaConfiguration) {
        var found: Set<String> = []
        for (key, value) in configuration.properties where KafkaConfiguration.isSecret(key: key) {
            found.formUnion(parts(of: value))
        }
        guard !found.isEmpty else { return }
        secrets.withLock { $0.formUnion(found) }
    }

    /// `value` itself and, for composite values (`a=b, c="d"`, JAAS `k="v";`), each part's value, unquoted.
    static func parts(of value: String) -> Set<String> {
        var parts: Set<String> = [value]
        for token in value.split(whereSeparator: { ",; \t\r\n".contains($0) }) {
            guard let equals = token.firstIndex(of: "=") else { continue }
            var part = token[token.index(after: equals)...]
            while let first = part.first, first == "\"" || first == "'" { part.removeFirst() }
            while let last = part.last, last == "\"" || last == "'" { part.removeLast() }
            parts.insert(String(part))
        }
        return parts.filter { $0.count >= minimumLength }
    }

    /// `text` with every registered secret replaced by `[redacted]`, longest first (so a value containing another
    /// secret is replaced whole).
    static func scrub(_ text: String) -> String {
        let known = secrets.withLock { $0 }
        guard !known.isEmpty else { return text }
        var result = text
        for secret in known.sorted(by: { $0.count > $1.count }) where result.contains(secret) {
            result = result.replacing(secret, with: KafkaConfiguration.redacted)
        }
        return result
    }
}
