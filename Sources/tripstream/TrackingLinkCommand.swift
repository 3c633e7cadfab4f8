import CommandLineKit
import Console

/// `tripstream tracking-link`: prints the customer tracking URL of one trip.
enum TrackingLinkCommand {
    static let spec = CommandSpec(
        name: "tracking-link",
        abstract: "Print the tracking page URL of one trip (an HMAC under the console's --secret-file).",
        discussion: """
            The link shows the trip's driver, track, destination and ETA until --expires-after past the trip's \
            end, and nothing else. A notification service can mint the same link itself: see docs/console-and-tracking.md.
            """,
        options: [
            .value("secret-file", valueName: "file", help: "The console's --secret-file.", required: true),
            .value("user", valueName: "id", help: "The trip's user.", required: true),
            .value("trip", valueName: "externalId", help: "The trip's external id.", required: true),
            .value("console", valueName: "url", help: "The console's public URL.", required: true),
            .value("expires-after", valueName: "duration", help: "How long after the trip ends the link works.",
                   default: "1h"),
        ])

    static func run(_ parsed: ParsedArguments) throws {
        let secret = try SecretFile.read(try parsed.string("secret-file"), option: "secret-file", minimumBytes: 16)
        let user = try parsed.string("user")
        let trip = try parsed.string("trip")
        for (option, value) in [("user", user), ("trip", trip)] where value.isEmpty || value.contains("\n") {
            throw CommandFailure("--\(option) must be a non-empty single line")
        }
        let seconds = try parsed.duration("expires-after") / 1000
        guard (0...TrackingToken.maximumExpirySeconds).contains(seconds) else {
            throw CommandFailure("--expires-after must be between 0 and 366 days")
        }
        var console = try parsed.string("console")
        guard console.hasPrefix("http://") || console.hasPrefix("https://") else {
            throw CommandFailure("--console must be an http:// or https:// URL")
        }
        while console.hasSuffix("/") { console.removeLast() }
        let token = TrackingToken(user: user, trip: trip, expiresAfterSeconds: seconds)
        Terminal.output("\(console)/track/\(token.encoded(secret: secret))")
    }
}
