/// Why chaos settings were refused.
public enum ChaosSettingsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The seed is not a decimal whole number from 0 to 2⁶⁴-1.
    case seedNotAWholeNumber(String)
    /// The mean interval between faults is outside ``ChaosSettings/intervals``.
    case intervalOutOfRange(milliseconds: Int64)

    public var description: String {
        switch self {
        case let .seedNotAWholeNumber(text):
            "a chaos seed is a whole number from 0 to \(UInt64.max), got '\(text)'"
        case let .intervalOutOfRange(milliseconds):
            "the mean interval between faults must be from \(ChaosSettings.intervals.lowerBound)ms to "
                + "\(ChaosSettings.intervals.upperBound / 60_000)m, got \(milliseconds)ms"
        }
    }
}
