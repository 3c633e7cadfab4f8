import CommandLineKit
import Domain

/// `--set name=value`: what-if overrides of the fold's settings, by the names `--set help` lists.
enum FoldSettingOverrides {
    /// A setting: its name, what its value is, and how to set it (nil: the value is not acceptable).
    struct Setting: Sendable {
        var name: String
        var unit: String
        var apply: @Sendable (inout FoldSettings, String) -> Bool
    }

    static let settings: [Setting] = [
        number("hysteresis-minimum", "meters", \.hysteresisMinimum, 0...10_000),
        number("hysteresis-fraction", "fraction of the radius", \.hysteresisFraction, 0...10),
        number("hysteresis-maximum", "meters", \.hysteresisMaximum, 0...100_000),
        number("enter-accuracy-floor", "meters", \.enterAccuracyFloor, 0...100_000),
        Setting(name: "max-usable-accuracy", unit: "meters") { settings, text in
            guard let value = Float(text), value > 0, value <= 1_000_000 else { return false }
            settings.maxUsableAccuracy = value
            return true
        },
        number("max-plausible-speed", "m/s", \.maxPlausibleSpeed, 1...100_000),
        number("jump-slack", "meters", \.jumpSlack, 0...1_000_000),
        Setting(name: "jump-confirmations", unit: "fixes") { settings, text in
            guard let value = UInt8(text), value >= 1 else { return false }
            settings.jumpConfirmations = value
            return true
        },
        number("mileage-minimum-step", "meters", \.mileageMinimumStep, 0...10_000),
        duration("fresh-location", \.freshLocation, 0...FoldSettings.maximumReplayHorizon),
        Setting(name: "default-approaching-threshold", unit: "minutes") { settings, text in
            guard let value = Int(text), (0...1_440).contains(value) else { return false }
            settings.defaultApproachingThreshold = value
            return true
        },
        Setting(name: "default-delay-threshold", unit: "minutes") { settings, text in
            guard let value = Int(text), (0...1_440).contains(value) else { return false }
            settings.defaultDelayThreshold = value
            return true
        },
        Setting(name: "wrong-destination", unit: "stop, entry or off") { settings, text in
            guard let rule = WrongDestinationRule(name: text) else { return false }
            settings.wrongDestination = rule
            return true
        },
        number("default-destination-radius", "meters", \.defaultDestinationRadius, 1...100_000),
        duration("trip-expiry", \.tripExpiry, 60_000...FoldSettings.maximumReplayHorizon),
        duration("trip-signal-lost-after", \.tripSignalLostAfter, 0...FoldSettings.maximumReplayHorizon),
        duration("moving-away-after", \.movingAwayAfter, 0...FoldSettings.maximumReplayHorizon),
        number("stop-speed", "m/s", \.stopSpeed, 0...50),
        duration("stop-duration", \.stopDuration, 0...FoldSettings.maximumReplayHorizon),
        duration("late-lag", \.lateLag, 0...FoldSettings.maximumReplayHorizon),
        duration("replay-horizon", \.replayHorizon, 0...FoldSettings.maximumReplayHorizon),
        duration("max-clock-skew", \.maxClockSkew, 0...FoldSettings.maximumReplayHorizon),
    ]

    /// Applies `name=value` items in order; an unknown name or a bad value is an error naming it.
    static func apply(_ items: [String], to settings: inout FoldSettings) throws {
        for item in items {
            guard let equals = item.firstIndex(of: "=") else {
                throw CommandFailure("--set \(item): expected name=value; settings: \(names)")
            }
            let name = String(item[..<equals]), value = String(item[item.index(after: equals)...])
            guard let setting = Self.setting(named: name) else {
                throw CommandFailure("--set \(item): no setting \(name); settings: \(names)")
            }
            guard setting.apply(&settings, value) else {
                throw CommandFailure("--set \(item): \(value) is not an acceptable value (\(setting.unit))")
            }
        }
    }

    static var names: String { settings.map(\.name).joined(separator: ", ") }

    private static func setting(named name: String) -> Setting? { Self.settings.first { $0.name == name } }

    private static func number(_ name: String, _ unit: String, _ path: WritableKeyPath<FoldSettings, Double> & Sendable,
                               _ range: ClosedRange<Double>) -> Setting
    {
        Setting(name: name, unit: "\(unit), \(range.lowerBound) to \(range.upperBound)") { settings, text in
            guard let value = Double(text), range.contains(value) else { return false }
            settings[keyPath: path] = value
            return true
        }
    }

    private static func duration(_ name: String, _ path: WritableKeyPath<FoldSettings, UnixMillis> & Sendable,
                                 _ range: ClosedRange<UnixMillis>) -> Setting
    {
        Setting(name: name, unit: "\(ValueSyntax.durationExpectation), at most \(range.upperBound / 86_400_000) d") {
            settings, text in
            guard let value = ValueSyntax.milliseconds(text), range.contains(value) else { return false }
            settings[keyPath: path] = value
            return true
        }
    }
}
