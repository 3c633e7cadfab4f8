/// Renders help screens and usage lines from declarations. Knows nothing about parsing.
public struct HelpFormatter: Sendable {
    /// Maximum line width. Default: 100.
    public var width: Int

    /// Creates a formatter wrapping at `width` columns.
    public init(width: Int = 100) {
        self.width = width
    }

    // MARK: - Program

    /// `tripstream --help`: overview, usage and the list of commands with their abstracts.
    public func programHelp(_ program: CommandLineProgram) -> String {
        var lines = overview(program.abstract, discussion: program.discussion)
        lines += wrap("USAGE: \(program.name) <command> [<options>]", indent: 7)
        lines += ["", "COMMANDS:"]
        let rows = program.commands.map { command in
            (label: command.name + (command.name == program.defaultCommand ? " (default)" : ""), text: command.abstract)
        }
        lines += TextWrapper.columns(rows, width: width)
        lines += ["", "  See '\(program.name) <command> --help' for a command's options."]
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: - Command

    /// `tripstream <command> --help`: overview, discussion, usage line, arguments and options in aligned columns
    /// with choices, defaults and environment variables.
    /// - Parameter usageName: what precedes the options in the usage line, e.g. `tripstream replay`.
    public func commandHelp(_ command: CommandSpec, usageName: String) -> String {
        var lines = overview(command.abstract, discussion: command.discussion)
        lines += [usageLine(command, usageName: usageName)]
        if !command.positionals.isEmpty {
            lines += ["", "ARGUMENTS:"]
            lines += TextWrapper.columns(
                command.positionals.map { (label: "<\($0.name)>", text: $0.help) }, width: width)
        }
        lines += ["", "OPTIONS:"]
        var rows = command.options.map { (label: label(for: $0), text: describe($0)) }
        rows.append((label: "-h, --help", text: "Show help information."))
        lines += TextWrapper.columns(rows, width: width)
        return lines.joined(separator: "\n") + "\n"
    }

    /// `USAGE: tripstream replay --output <path> [<options>] [<files> ...]`, wrapped if long. Required options are
    /// spelled out; the others are summarized as `[<options>]`.
    public func usageLine(_ command: CommandSpec, usageName: String) -> String {
        var parts = ["USAGE:", usageName]
        for option in command.options where option.isRequired {
            parts.append(option.displayName + (option.kind == .flag ? "" : " <\(option.valueName)>"))
            if option.kind == .repeatableValue { parts[parts.count - 1] += " ..." }
        }
        if command.options.contains(where: { !$0.isRequired }) { parts.append("[<options>]") }
        for positional in command.positionals {
            let name = "<\(positional.name)>" + (positional.isRepeating ? " ..." : "")
            parts.append(positional.isRequired ? name : "[\(name)]")
        }
        return wrap(parts.joined(separator: " "), indent: 7).joined(separator: "\n")
    }

    // MARK: - Pieces

    private func overview(_ abstract: String, discussion: String) -> [String] {
        var lines = wrap("OVERVIEW: " + abstract, indent: 10) + [""]
        if !discussion.isEmpty { lines += wrap(discussion, indent: 0) + [""] }
        return lines
    }

    private func wrap(_ text: String, indent: Int) -> [String] {
        TextWrapper.wrap(text, width: width, indent: indent, firstIndent: 0)
    }

    private func label(for option: OptionSpec) -> String {
        let long = option.allowsInversion ? "--[no-]" + option.longName : option.displayName
        var label = option.shortName.map { "-\($0), \(long)" } ?? long
        if option.kind != .flag { label += " <\(option.valueName)>" }
        if option.kind == .repeatableValue { label += " ..." }
        return label
    }

    private func describe(_ option: OptionSpec) -> String {
        var notes: [String] = []
        if !option.choices.isEmpty { notes.append("choices: " + option.choices.joined(separator: ", ")) }
        if let defaultValue = option.defaultValue { notes.append("default: " + defaultValue) }
        if let variable = option.environmentVariable { notes.append("env: " + variable) }
        if option.isRequired { notes.append("required") }
        return notes.isEmpty ? option.help : option.help + " (" + notes.joined(separator: "; ") + ")"
    }
}
