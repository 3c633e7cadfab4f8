/// Parses the arguments that follow a command name against that command's table, then resolves every option
/// through flag > environment > config file > default.
struct CommandParser {
    let command: CommandSpec
    /// `tripstream replay`: prefix of usage lines and of the `--help` hint in errors.
    let usageName: String
    let helpText: () -> String

    /// - Parameter arguments: a slice of the caller's array, so indices are positions the errors can report.
    func parse(
        _ arguments: ArraySlice<String>,
        environment: [String: String],
        readFile: (String) throws -> String
    ) throws -> ParsedArguments {
        let (commandLineValues, positionalTexts) = try scan(arguments)
        let positionalValues = try assignPositionals(positionalTexts)
        let configValues = try loadConfigFile(commandLineValues, environment: environment, readFile: readFile)
        var resolved: [String: [ArgumentValue]] = [:]
        for option in command.options {
            let values = try resolve(option, commandLineValues, environment, configValues)
            if !values.isEmpty { resolved[option.longName] = values }
        }
        return ParsedArguments(
            command: command, usageName: usageName, optionValues: resolved, positionalValues: positionalValues)
    }

    // MARK: - Scanning the command line

    private func scan(
        _ arguments: ArraySlice<String>
    ) throws -> (options: [String: [ArgumentValue]], positionals: [ArgumentValue]) {
        var options: [String: [ArgumentValue]] = [:]
        var positionals: [ArgumentValue] = []
        var index = arguments.startIndex
        var afterTerminator = false

        func record(_ option: OptionSpec, _ text: String, at position: Int) {
            let value = ArgumentValue(text: text, source: .commandLine(position: position))
            if option.kind == .repeatableValue {
                options[option.longName, default: []].append(value)
            } else {
                options[option.longName] = [value]  // the last occurrence wins
            }
        }

        /// The argument after `index` as the value of `option`, or a `missingValue` error.
        func followingValue(of option: OptionSpec, spelled: String) throws(CommandLineError) -> Int {
            let valueIndex = index + 1
            guard valueIndex < arguments.endIndex, !Self.looksLikeOption(arguments[valueIndex]) else {
                throw error(.missingValue(option: spelled, valueName: option.valueName), at: index)
            }
            return valueIndex
        }

        while index < arguments.endIndex {
            let argument = arguments[index]
            if afterTerminator || !Self.looksLikeOption(argument) {
                positionals.append(ArgumentValue(text: argument, source: .commandLine(position: index)))
            } else if argument == "--" {
                afterTerminator = true
            } else if argument == "--help" || argument == "-h" {
                throw CleanExit(message: helpText())
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name = body.prefix { $0 != "=" }
                let inlineValue = name.count < body.count ? String(body.dropFirst(name.count + 1)) : nil
                if let option = command.option(named: name) {
                    if option.kind == .flag {
                        if let inlineValue {
                            throw error(.unexpectedValue(option: "--\(name)", text: inlineValue), at: index)
                        }
                        record(option, "true", at: index)
                    } else if let inlineValue {
                        record(option, inlineValue, at: index)
                    } else {
                        let valueIndex = try followingValue(of: option, spelled: "--\(name)")
                        record(option, arguments[valueIndex], at: valueIndex)
                        index = valueIndex
                    }
                } else if name.hasPrefix("no-"), let option = command.option(named: name.dropFirst(3)),
                    option.kind == .flag, option.allowsInversion
                {
                    if let inlineValue {
                        throw error(.unexpectedValue(option: "--\(name)", text: inlineValue), at: index)
                    }
                    record(option, "false", at: index)
                } else {
                    throw unknownOption("--\(name)", typedName: String(name), at: index)
                }
            } else {
                // `-v`, `-b value`, `-bvalue`, `-b=value`, or a cluster of flags `-vq`.
                let letters = Array(argument.dropFirst())
                for (offset, letter) in letters.enumerated() {
                    guard let option = command.option(short: letter) else {
                        let typedName = letters.count > 1 ? String(letters) : nil
                        throw unknownOption("-\(letter)", typedName: typedName, at: index)
                    }
                    if option.kind == .flag {
                        record(option, "true", at: index)
                        continue
                    }
                    let attached = String(letters[(offset + 1)...])
                    if !attached.isEmpty {
                        record(option, attached.hasPrefix("=") ? String(attached.dropFirst()) : attached, at: index)
                    } else {
                        let valueIndex = try followingValue(of: option, spelled: "-\(letter)")
                        record(option, arguments[valueIndex], at: valueIndex)
                        index = valueIndex
                    }
                    break
                }
            }
            index += 1
        }
        return (options, positionals)
    }

    /// `-x`, `--x`, `--`; but not `-` (stdin by convention) or negative numbers such as `-5`.
    static func looksLikeOption(_ argument: String) -> Bool {
        argument.hasPrefix("-") && argument.count > 1 && Double(argument) == nil
    }

    private func unknownOption(_ spelled: String, typedName: String?, at position: Int) -> CommandLineError {
        let suggestion = typedName.flatMap { typed in
            Suggestion.closest(to: typed, among: command.options.map(\.longName) + ["help"]).map { "--" + $0 }
        }
        return error(.unknownOption(spelled, suggestion: suggestion), at: position)
    }

    // MARK: - Positionals

    private func assignPositionals(_ texts: [ArgumentValue]) throws(CommandLineError) -> [String: [ArgumentValue]] {
        var assigned: [String: [ArgumentValue]] = [:]
        var remaining = texts[...]
        for positional in command.positionals {
            if positional.isRepeating {
                assigned[positional.name] = Array(remaining)
                remaining = []
            } else if let first = remaining.popFirst() {
                assigned[positional.name] = [first]
            }
            if positional.isRequired, assigned[positional.name, default: []].isEmpty {
                throw CommandLineError(.missingPositional(name: positional.name), usageName: usageName)
            }
        }
        if let extra = remaining.first {
            throw CommandLineError(.unexpectedPositional(extra.text), source: extra.source, usageName: usageName)
        }
        return assigned
    }

    // MARK: - Resolving sources

    private func loadConfigFile(
        _ commandLineValues: [String: [ArgumentValue]],
        environment: [String: String],
        readFile: (String) throws -> String
    ) throws(CommandLineError) -> [String: [ArgumentValue]] {
        guard let configOption = command.options.first(where: \.isConfigFile),
            let path = commandLineValues[configOption.longName]?.last ?? environmentValue(of: configOption, environment)
        else { return [:] }
        let contents: String
        do {
            contents = try readFile(path.text)
        } catch let failure as CommandLineError {
            throw CommandLineError(failure.kind, source: path.source, usageName: usageName)
        } catch {
            let failure = CommandLineError.Kind.unreadableConfigFile(path: path.text, reason: "\(error)")
            throw CommandLineError(failure, source: path.source, usageName: usageName)
        }
        do {
            return try ConfigFile.values(in: contents, path: path.text, command: command)
        } catch {
            throw CommandLineError(error.kind, source: error.source, usageName: usageName)
        }
    }

    private func environmentValue(of option: OptionSpec, _ environment: [String: String]) -> ArgumentValue? {
        // An empty variable counts as unset, as `VAR= tripstream run` is the shell's way to clear it.
        guard let variable = option.environmentVariable, let text = environment[variable], !text.isEmpty else {
            return nil
        }
        return ArgumentValue(text: text, source: .environment(variable: variable))
    }

    private func resolve(
        _ option: OptionSpec,
        _ commandLineValues: [String: [ArgumentValue]],
        _ environment: [String: String],
        _ configValues: [String: [ArgumentValue]]
    ) throws(CommandLineError) -> [ArgumentValue] {
        let values: [ArgumentValue]
        if let fromCommandLine = commandLineValues[option.longName] {
            values = fromCommandLine
        } else if let fromEnvironment = environmentValue(of: option, environment) {
            values = [fromEnvironment]
        } else if let fromConfig = configValues[option.longName] {
            values = option.kind == .repeatableValue ? fromConfig : [fromConfig[fromConfig.count - 1]]
        } else if let defaultValue = option.defaultValue {
            values = [ArgumentValue(text: defaultValue, source: .defaultValue)]
        } else {
            values = []
        }
        if values.isEmpty, option.isRequired {
            throw CommandLineError(
                .missingRequiredOption(option: option.displayName, environmentVariable: option.environmentVariable),
                usageName: usageName)
        }
        // Types the table knows are checked now, so the error points at the argument before anything runs.
        for value in values {
            if !option.choices.isEmpty, !option.choices.contains(value.text) {
                let expected = "one of: " + option.choices.joined(separator: ", ")
                throw error(.badValue(option: option.displayName, text: value.text, expected: expected), value.source)
            }
            if option.kind == .flag, ValueText.boolean(value.text) == nil {
                let expected = ValueText.booleanExpectation
                throw error(.badValue(option: option.displayName, text: value.text, expected: expected), value.source)
            }
        }
        return values
    }

    // MARK: - Errors

    private func error(_ kind: CommandLineError.Kind, at position: Int) -> CommandLineError {
        error(kind, .commandLine(position: position))
    }

    private func error(_ kind: CommandLineError.Kind, _ source: ValueSource) -> CommandLineError {
        CommandLineError(kind, source: source, usageName: usageName)
    }
}
