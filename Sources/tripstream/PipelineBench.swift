import CommandLineKit

/// `tripstream bench --pipeline`: end-to-end through the dev broker (built with the Kafka runtime).
enum PipelineBench {
    static func run(parsed: ParsedArguments, workload: BenchWorkload) throws {
        throw CommandFailure("--pipeline: the Kafka pipeline benchmark is not built yet")
    }
}
