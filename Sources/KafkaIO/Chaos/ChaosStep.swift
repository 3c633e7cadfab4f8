/// One step of a chaos schedule: a fault injected, or healed, at a time after the schedule's start.
public struct ChaosStep: Hashable, Sendable {
    /// Whether the step breaks something or brings it back.
    public enum Action: Hashable, Sendable {
        case inject
        case heal
    }

    /// Milliseconds after the schedule's start.
    public var at: Int64
    public var action: Action
    public var fault: ChaosFault

    public init(at: Int64, action: Action, fault: ChaosFault) {
        self.at = at
        self.action = action
        self.fault = fault
    }

    /// The line the chaos broker prints for the step, e.g. `fault: broker-down at=12.250s broker=2 for=1.500s` or
    /// `healed: broker-down at=13.750s broker=2`: a prefix, the kind, the planned time, then `key=value` fields.
    public var line: String {
        let (prefix, fields) = action == .inject ? ("fault:", fault.fields) : ("healed:", fault.healedFields)
        return ([prefix, fault.kind.rawValue, "at=" + Self.seconds(at)] + fields.map { "\($0)=\($1)" })
            .joined(separator: " ")
    }

    /// Milliseconds as seconds with three decimals, as in the lines: `1500` → `1.500s`.
    public static func seconds(_ milliseconds: Int64) -> String {
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)s"
    }
}
