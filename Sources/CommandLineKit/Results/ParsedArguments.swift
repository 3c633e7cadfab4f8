/// The outcome of parsing one command line: the chosen command and, for every option, its resolved raw values
/// (flag > environment > config file > default). Typed getters convert on demand and report precise errors.
///
/// Reading an option that the command did not declare is a programmer error and stops the program.
public struct ParsedArguments: Sendable {
    /// The declaration of the chosen command.
    public let command: CommandSpec
    /// Usage line prefix, e.g. `tripstream replay`; used in error messages.
    let usageName: String
    let optionValues: [String: [ArgumentValue]]
    let positionalValues: [String: [ArgumentValue]]

    init(
        command: CommandSpec, usageName: String, optionValues: [String: [ArgumentValue]],
        positionalValues: [String: [ArgumentValue]]
    ) {
        self.command = command
        self.usageName = usageName
        self.optionValues = optionValues
        self.positionalValues = positionalValues
    }

    /// Name of the chosen command.
    public var commandName: String { command.name }

    // MARK: - Raw access

    /// Whether any source (flag, environment, config file or default) supplied a value for `option`.
    public func contains(_ option: String) -> Bool {
        !values(of: option).isEmpty
    }

    /// All resolved raw values of `option` with their sources; empty when nothing supplied one.
    public func values(of option: String) -> [ArgumentValue] {
        precondition(command.option(named: option) != nil, "\(command.name) declares no option --\(option)")
        return optionValues[option] ?? []
    }

    /// Where the value of `option` came from, or `nil` if it has none.
    public func source(of option: String) -> ValueSource? {
        values(of: option).last?.source
    }

    /// The value of positional argument `name`, or `nil` when it was not given.
    public func positional(_ name: String) -> String? {
        positionals(name).first
    }

    /// All values of positional argument `name` (several only for a repeating positional).
    public func positionals(_ name: String) -> [String] {
        precondition(
            command.positionals.contains { $0.name == name }, "\(command.name) declares no positional <\(name)>")
        return (positionalValues[name] ?? []).map(\.text)
    }

    // MARK: - Helpers for typed getters

    /// The value that counts for a single-value read (the last one), or a `missingRequiredOption` error.
    func singleValue(of option: String) throws(CommandLineError) -> ArgumentValue {
        guard let value = values(of: option).last else {
            let spec = command.option(named: option)
            throw CommandLineError(
                .missingRequiredOption(option: "--\(option)", environmentVariable: spec?.environmentVariable),
                source: nil, usageName: usageName)
        }
        return value
    }

    func badValue(_ option: String, _ value: ArgumentValue, expected: String) -> CommandLineError {
        CommandLineError(
            .badValue(option: "--\(option)", text: value.text, expected: expected), source: value.source,
            usageName: usageName)
    }
}
