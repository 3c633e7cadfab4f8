/// A positional argument a command accepts, in declaration order.
public struct PositionalSpec: Sendable, Equatable {
    /// Name shown as `<name>` in help and used to read the value back.
    public var name: String
    /// One sentence for the help screen.
    public var help: String
    /// When `true`, parsing fails if the argument is missing.
    public var isRequired: Bool
    /// When `true`, this argument swallows all remaining positionals; it must be declared last.
    public var isRepeating: Bool

    /// Creates a positional argument declaration.
    public init(_ name: String, help: String, isRequired: Bool = false, isRepeating: Bool = false) {
        self.name = name
        self.help = help
        self.isRequired = isRequired
        self.isRepeating = isRepeating
    }
}
