// MARK: - Parsing

extension CommandLineProgram {
    /// Parses `arguments` (without the executable name) into the chosen command and its values.
    ///
    /// - Parameters:
    ///   - arguments: e.g. `Array(CommandLine.arguments.dropFirst())`. Error positions index into this array.
    ///   - environment: variables consulted for options that declare one; injected so tests stay hermetic.
    ///   - readFile: reads the `--config` file; defaults to the file system.
    /// - Throws: `CleanExit` for `--help`/`-h`/`help [command]`, `CommandLineError` for usage errors.
    public func parse(
        arguments: [String],
        environment: [String: String],
        readFile: (String) throws -> String = ConfigFile.readContents(atPath:)
    ) throws -> ParsedArguments {
        let formatter = HelpFormatter()
        let first = arguments.first
        if first == "--help" || first == "-h" || (first == "help" && command(named: "help") == nil) {
            guard arguments.count > 1, first == "help" else { throw CleanExit(message: formatter.programHelp(self)) }
            guard let command = command(named: arguments[1]) else { throw unknownCommand(arguments[1], at: 1) }
            throw CleanExit(message: formatter.commandHelp(command, usageName: "\(name) \(command.name)"))
        }
        let chosen: CommandSpec
        let rest: ArraySlice<String>
        if let first, let command = command(named: first) {
            (chosen, rest) = (command, arguments.dropFirst())
        } else if let defaultCommand, first.map(CommandParser.looksLikeOption) ?? true {
            (chosen, rest) = (command(named: defaultCommand)!, arguments[...])
        } else if let first, !CommandParser.looksLikeOption(first) {
            throw unknownCommand(first, at: 0)
        } else {
            let source = first.map { _ in ValueSource.commandLine(position: 0) }
            throw CommandLineError(.missingCommand(available: commands.map(\.name)), source: source, usageName: name)
        }
        let usageName = "\(name) \(chosen.name)"
        let parser = CommandParser(command: chosen, usageName: usageName) {
            formatter.commandHelp(chosen, usageName: usageName)
        }
        return try parser.parse(rest, environment: environment, readFile: readFile)
    }

    private func unknownCommand(_ typed: String, at position: Int) -> CommandLineError {
        let suggestion = Suggestion.closest(to: typed, among: commands.map(\.name))
        return CommandLineError(
            .unknownCommand(typed, suggestion: suggestion), source: .commandLine(position: position), usageName: name)
    }
}

extension CommandSpec {
    /// Parses `arguments` for this command alone, for executables without subcommands and for tests.
    /// - Parameter usageName: what usage lines and error hints call the command. Default: the command's name.
    public func parse(
        arguments: [String],
        environment: [String: String],
        usageName: String? = nil,
        readFile: (String) throws -> String = ConfigFile.readContents(atPath:)
    ) throws -> ParsedArguments {
        let usageName = usageName ?? name
        let parser = CommandParser(command: self, usageName: usageName) {
            HelpFormatter().commandHelp(self, usageName: usageName)
        }
        return try parser.parse(arguments[...], environment: environment, readFile: readFile)
    }
}
