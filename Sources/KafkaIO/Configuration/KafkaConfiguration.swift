/// librdkafka client properties, as ordered `key=value` strings.
///
/// KafkaIO sets the few keys it depends on (idempotence, isolation level, assignment strategy…) itself; everything
/// else — `bootstrap.servers`, SASL, TLS, tuning — passes through from here, typically loaded from a `.properties`
/// file with ``load(propertiesFile:)``. Later entries for the same key replace earlier ones in place, so the order
/// of first appearance is kept (it is what users see in ``description``).
public struct KafkaConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// The properties in order of first appearance; keys are unique.
    public private(set) var properties: [(key: String, value: String)]

    /// Creates a configuration; a repeated key keeps its first position and its last value.
    public init(properties: [(key: String, value: String)] = []) {
        self.properties = []
        for (key, value) in properties { self[key] = value }
    }

    /// Creates a configuration from a dictionary, ordered by key so descriptions are stable.
    public init(_ dictionary: [String: String]) {
        self.init(properties: dictionary.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) })
    }

    /// The value for `key`, or `nil`; assigning `nil` removes the key.
    public subscript(key: String) -> String? {
        get { properties.first { $0.key == key }?.value }
        set {
            let index = properties.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let index?, let value?): properties[index].value = value
            case (let index?, nil): properties.remove(at: index)
            case (nil, let value?): properties.append((key: key, value: value))
            case (nil, nil): break
            }
        }
    }

    /// Returns a copy where every property of `other` overrides or extends this one.
    public func merging(_ other: KafkaConfiguration) -> KafkaConfiguration {
        var merged = self
        for (key, value) in other.properties { merged[key] = value }
        return merged
    }

    /// Returns a copy with `key` set only if it is not already present (used for KafkaIO's defaults).
    public func settingDefault(_ key: String, _ value: String) -> KafkaConfiguration {
        var copy = self
        if copy[key] == nil { copy[key] = value }
        return copy
    }

    public static func == (lhs: KafkaConfiguration, rhs: KafkaConfiguration) -> Bool {
        lhs.properties.elementsEqual(rhs.properties) { $0.key == $1.key && $0.value == $1.value }
    }

    // MARK: - Redaction

    /// Key fragments whose values are credentials; matched case-insensitively.
    private static let secretFragments = ["password", "secret", "sasl.jaas", "ssl.key", "sasl.oauthbearer.config"]

    /// Whether the value of `key` must never be printed.
    public static func isSecret(key: String) -> Bool {
        let lowered = key.lowercased()
        return secretFragments.contains { lowered.contains($0) }
    }

    /// `key=value` lines with credential values replaced by `[redacted]`, safe for logs.
    public var description: String {
        properties.map { "\($0.key)=\(Self.isSecret(key: $0.key) ? "[redacted]" : $0.value)" }
            .joined(separator: "\n")
    }
}
