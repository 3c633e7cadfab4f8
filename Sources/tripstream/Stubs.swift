import CommandLineKit

enum RunCommand {
    static let spec = CommandSpec(name: "run", abstract: "The service, against real brokers.")
    static func run(_ parsed: ParsedArguments) throws { throw CommandFailure("run: not built yet") }
}

enum DevBrokerCommand {
    static let spec = CommandSpec(name: "dev-broker", abstract: "A Kafka-protocol broker on localhost (mock cluster).")
    static func run(_ parsed: ParsedArguments) throws { throw CommandFailure("dev-broker: not built yet") }
}

enum DemoCommand {
    static let spec = CommandSpec(name: "demo", abstract: "Everything in one process on the embedded broker.")
    static func run(_ parsed: ParsedArguments) throws { throw CommandFailure("demo: not built yet") }
}

