import CRdKafka
import Foundation
@testable import KafkaIO
import Testing

/// Secrets in client properties never reach a log line or an error message.
@Suite("Redaction")
struct RedactionTests {
    /// Properties whose values can be credentials, or identify where they are.
    static let secretKeys = [
        // Passwords and secrets.
        "sasl.password", "ssl.key.password", "ssl.keystore.password", "sasl.oauthbearer.client.secret",
        "SSL.KEYSTORE.PASSWORD", "some.plugin.passwd", "schema.registry.client.secret",
        // Keys, keystores, keytabs, inline PEM.
        "ssl.key.pem", "ssl.key.location", "ssl_key", "ssl.keystore.location", "sasl.kerberos.keytab", "ssl.ca.pem",
        "ssl.certificate.pem", "api.key", "schema.registry.apikey",
        // Every sasl.* that is not a mechanism choice or a timing setting.
        "sasl.username", "sasl.jaas.config", "sasl.oauthbearer.config", "sasl.oauthbearer.extensions",
        "sasl.oauthbearer.client.id", "sasl.oauthbearer.scope", "sasl.oauthbearer.token.endpoint.url",
        "sasl.kerberos.principal", "sasl.kerberos.kinit.cmd", "sasl.login.callback.handler.class",
        // Basic and bearer auth of HTTP clients configured alongside (schema registry).
        "basic.auth.user.info", "basic.auth.credentials.source", "bearer.auth.token", "BASIC.AUTH.USER.INFO",
        // Tokens and credentials anywhere.
        "oauthbearer_token_refresh_cb", "cloud.access.token", "aws.credentials.file", "listener.jaas.config",
    ]

    /// Properties that are never secret: printing them is what makes the start-up line useful.
    static let publicKeys = [
        "bootstrap.servers", "security.protocol", "sasl.mechanisms", "sasl.mechanism", "sasl.kerberos.service.name",
        "sasl.kerberos.min.time.before.relogin", "sasl.oauthbearer.method", "client.id", "ssl.ca.location",
        "ssl.certificate.location", "ssl.endpoint.identification.algorithm", "enable.ssl.certificate.verification",
        "enable.sasl.oauthbearer.unsecure.jwt", "group.id", "group.instance.id", "transactional.id",
        "session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms", "socket.keepalive.enable",
        "queued.max.messages.kbytes", "partition.assignment.strategy", "isolation.level", "debug",
    ]

    /// librdkafka 2.0.2's own `_RK_SENSITIVE` properties (rdkafka_conf.c), which it redacts in its dumps.
    static let librdkafkaSensitive = [
        "ssl.key.location", "ssl.key.password", "ssl.key.pem", "ssl_key", "ssl.ca.pem", "ssl.keystore.password",
        "sasl.username", "sasl.password", "sasl.oauthbearer.config",
    ]

    @Test(arguments: secretKeys + librdkafkaSensitive)
    func secretKeyIsRedacted(key: String) {
        #expect(KafkaConfiguration.isSecret(key: key))
        let line = KafkaConfiguration(properties: [(key, "V4LUE-of-\(key)")]).description
        #expect(line == "\(key)=[redacted]")
    }

    @Test(arguments: publicKeys)
    func publicKeyIsPrinted(key: String) {
        #expect(!KafkaConfiguration.isSecret(key: key))
        #expect(KafkaConfiguration(properties: [(key, "shown")]).description == "\(key)=shown")
    }

    /// The start-up line of `tripstream run` interpolates the configuration; so may any struct that holds one.
    @Test func loggedConfigurationHoldsNoSecretValue() throws {
        let text = """
            bootstrap.servers=broker-1:9092
            security.protocol=SASL_SSL
            sasl.mechanisms=OAUTHBEARER
            sasl.username=APIKEY7QX
            sasl.password=pw-S3CRET-1
            sasl.oauthbearer.extensions=logicalCluster=lkc-1,identityPoolId=pool-1,token=tok-S3CRET-2
            basic.auth.user.info=K:S3CRET-3
            ssl.key.pem=-----BEGIN PRIVATE KEY-----MIIS3CRET4-----END PRIVATE KEY-----
            ssl.key.password=pw-S3CRET-5
            ssl.ca.location=/etc/ssl/ca.pem
            schema.registry.url=https://SRKEY:S3CRET-6@registry.example:8081
            client.id=tripstream
            """
        let configuration = try KafkaConfiguration.parse(properties: text)
        let secrets = ["APIKEY7QX", "S3CRET", "tok-", "MIIS", "SRKEY"]

        let line = "kafka client: \(configuration)"
        struct Options { var kafka: KafkaConfiguration; var group = "g" }
        var dumped = ""
        dump(configuration, to: &dumped)
        for printed in [line, String(reflecting: configuration), "\(Options(kafka: configuration))", dumped] {
            for secret in secrets {
                #expect(!printed.contains(secret), "\(secret) printed in: \(printed)")
            }
        }
        for shown in [
            "bootstrap.servers=broker-1:9092", "security.protocol=SASL_SSL", "sasl.mechanisms=OAUTHBEARER",
            "ssl.ca.location=/etc/ssl/ca.pem", "client.id=tripstream",
            "schema.registry.url=https://[redacted]@registry.example:8081",
        ] {
            #expect(line.contains(shown), "\(shown) missing from: \(line)")
        }
        #expect(line.components(separatedBy: "[redacted]").count - 1 == 7)
    }

    @Test func urlUserInfoIsRedactedInAnyValue() {
        let redact = KafkaConfiguration.redactingURLUserInfo
        #expect(redact("https://u:p@h:1/path?q=a@b") == "https://[redacted]@h:1/path?q=a@b")
        #expect(redact("http://u:p@a,http://b,https://x@c/") == "http://[redacted]@a,http://b,https://[redacted]@c/")
        #expect(redact("user@example.com") == "user@example.com")
        #expect(redact("https://host/a@b") == "https://host/a@b")
        #expect(redact("broker-1:9092") == "broker-1:9092")
    }

    /// librdkafka may quote a value in a log line or an error string; KafkaIO scrubs every secret it was given.
    @Test func librdkafkaTextIsScrubbedOfConfiguredSecrets() throws {
        let cluster = try MockCluster(brokerCount: 1)
        let configuration = cluster.clientConfiguration.merging(KafkaConfiguration(properties: [
            ("client.id", "scrub-test"),
            ("sasl.password", "scrub-S3CRET-pw"),
            ("sasl.username", "scrubuser"),
        ]))
        // Creating a client registers its secrets (librdkafka warns about the unused SASL settings meanwhile).
        let producer = try KafkaProducer(configuration: configuration)
        _ = producer
        // So does one that librdkafka rejects (sasl.jaas.config is Java's; Debian's librdkafka is built without
        // OIDC, so it has no sasl.oauthbearer.extensions): registering comes first.
        for (key, value) in [
            ("sasl.jaas.config", #"x.PlainLoginModule required username="u" password="scrub-jaas-pw";"#),
            ("sasl.oauthbearer.extensions", "traceId=scrub-trace,token=scrub-token-value"),
        ] {
            #expect(throws: KafkaError.self) {
                _ = try KafkaProducer(configuration: KafkaConfiguration(properties: [(key, value)]))
            }
        }

        let message = """
            SASL/OAUTHBEARER extension values must only consist of ...: scrub-token-value (\u{7F}); \
            auth with scrub-S3CRET-pw and scrub-jaas-pw failed for scrubuser; client.id scrub-test
            """
        let line = kafkaLogLine(name: "rdkafka#producer-1", level: 3, facility: "SASL", message: message)
        for secret in ["scrub-token-value", "scrub-S3CRET-pw", "scrub-jaas-pw", "scrubuser"] {
            #expect(!line.contains(secret), "\(secret) in \(line)")
        }
        #expect(line.hasPrefix("kafka: ERROR rdkafka#producer-1 SASL: "))
        #expect(line.contains("client.id scrub-test"), "values that are not secret stay")

        let error = KafkaError(RD_KAFKA_RESP_ERR__AUTHENTICATION, "token scrub-token-value rejected")
        #expect(error.message == "token [redacted] rejected")
    }

    @Test func compositeSecretValuesAreSplitIntoTheirParts() {
        let parts = SecretScrubber.parts(of: #"a.B required username="usr" password="p4ssw0rd"; k='v4lue',x=1"#)
        #expect(parts.contains("p4ssw0rd") && parts.contains("v4lue"))
        #expect(!parts.contains("usr") && !parts.contains("1"), "too short to scrub without garbling text")
    }
}
