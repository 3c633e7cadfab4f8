/// How an option consumes arguments.
public enum OptionKind: Sendable, Equatable {
    /// A boolean switch: `--verbose` (and `--no-verbose` when the option allows inversion). Takes no value.
    case flag
    /// One value: `--brokers a:9092`, `--brokers=a:9092`, `-b a:9092`. Given twice, the last one wins.
    case singleValue
    /// Any number of values, one per occurrence: `--input a.ndjson --input b.ndjson`.
    case repeatableValue
}
