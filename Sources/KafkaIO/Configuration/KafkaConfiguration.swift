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

    /// Fragments of property names whose values are secrets, matched case-insensitively anywhere in the name:
    /// passwords (`sasl.password`, `ssl.key.password`, `ssl.keystore.password`), secrets
    /// (`sasl.oauthbearer.client.secret`), tokens (`bearer.auth.token`), anything about a key (`ssl.key.pem`,
    /// `ssl.key.location`, `ssl_key`, `ssl.keystore.*`, `sasl.kerberos.keytab`, API keys), inline PEM
    /// (`ssl.ca.pem`, `ssl.certificate.pem`) and JAAS configurations.
    private static let secretFragments = ["password", "passwd", "secret", "token", "key", "pem", "jaas", "credential"]

    /// `sasl.*` properties whose values cannot be secret: they choose a mechanism or tune timing. Every other
    /// `sasl.*` value is redacted, user names, principals, keytabs, endpoints and extensions included.
    private static let publicSASLProperties: Set<String> = [
        "sasl.mechanism", "sasl.mechanisms", "sasl.kerberos.service.name", "sasl.kerberos.min.time.before.relogin",
        "sasl.oauthbearer.method",
    ]

    /// Whether the value of `key` must never be printed.
    ///
    /// The rule, on the lowercased name:
    /// - every `sasl.*` property, except the few that only choose a mechanism or tune timing
    ///   (`sasl.mechanism`, `sasl.mechanisms`, `sasl.kerberos.service.name`,
    ///   `sasl.kerberos.min.time.before.relogin`, `sasl.oauthbearer.method`);
    /// - any name with an `auth` part (`basic.auth.user.info`, `bearer.auth.token`, …);
    /// - any name containing `password`, `passwd`, `secret`, `token`, `key`, `pem`, `jaas` or `credential`
    ///   (so `ssl.key.location` and `ssl.keystore.location` are hidden too, as librdkafka itself treats them:
    ///   a key's path is cheap to hide and tells an attacker where to look).
    ///
    /// Not secret, so printed: `bootstrap.servers`, `security.protocol`, `client.id`, `ssl.ca.location`,
    /// `ssl.certificate.location`, `ssl.endpoint.identification.algorithm`, timeouts and tuning.
    public static func isSecret(key: String) -> Bool {
        let lowered = key.lowercased()
        if lowered.hasPrefix("sasl.") { return !publicSASLProperties.contains(lowered) }
        if lowered.split(whereSeparator: { $0 == "." || $0 == "_" }).contains("auth") { return true }
        return secretFragments.contains { lowered.contains($0) }
    }

    /// What may be printed of `value` set for `key`: `[redacted]` for a secret key; otherwise the value, with the
    /// user information of any URL in it (`https://user:password@host`) redacted.
    public static func printable(key: String, value: String) -> String {
        isSecret(key: key) ? redacted : redactingURLUserInfo(value)
    }

    /// The text that replaces a secret.
    public static let redacted = "[redacted]"

    /// `scheme://user:password@host…` becomes `scheme://[redacted]@host…`, for every URL in `text`.
    static func redactingURLUserInfo(_ text: String) -> String {
        guard text.contains("://"), text.contains("@") else { return text }
        var result = ""
        var rest = Substring(text)
        while let schemeEnd = rest.firstRange(of: "://") {
            result += rest[..<schemeEnd.upperBound]
            rest = rest[schemeEnd.upperBound...]
            // The authority ends at the first `/`, `?`, `#`, `,` or whitespace (a list of URLs is comma-separated).
            let authorityEnd =
                rest.firstIndex { "/?#,".contains($0) || $0.isWhitespace } ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@") {
                result += redacted
                rest = rest[at...]
            }
        }
        return result + rest
    }

    /// `key=value` lines with secret values replaced by `[redacted]`, safe for logs (see ``isSecret(key:)``).
    public var description: String {
        properties.map { "\($0.key)=\(Self.printable(key: $0.key, value: $0.value))" }.joined(separator: "\n")
    }
}

extension KafkaConfiguration: CustomDebugStringConvertible, CustomReflectable {
    /// The same redacted text as ``description``: `debugPrint` and string interpolation of a struct holding a
    /// configuration must not reveal secrets either.
    public var debugDescription: String { description }

    /// A mirror of the redacted properties, so `dump` and reflection-based printing never see a secret.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: properties.map { (label: $0.key, value: Self.printable(key: $0.key, value: $0.value) as Any) },
            displayStyle: .dictionary)
    }
}
