import Domain

/// What a replay did: the figures `tripstream replay` prints.
public struct ReplaySummary: Sendable {
    public var processor = ProcessorCounters()
    public var fold = FoldCounters()
    public var geofences = 0
    public var seconds = 0.0

    public init() {}

    public var fixesPerSecond: Double { seconds > 0 ? Double(fold.fixes) / seconds : 0 }

    /// Human-readable lines: records in, events by type, dead letters by reason, throughput.
    public var lines: [String] {
        var lines: [String] = []
        lines.append("records in      \(processor.recordsIn) (fixes \(fold.fixes), trip commands \(fold.commands), geofences \(processor.geofenceUpserts + processor.geofenceDeletes))")
        lines.append("geofences       \(geofences) in the table")
        lines.append("events out      \(fold.events)")
        for type in EventType.allCases where fold.eventsByType[Int(type.rawValue)] > 0 {
            lines.append("  \(type.name.padded(36)) \(fold.eventsByType[Int(type.rawValue)])")
        }
        lines.append("  of which corrected \(fold.corrected), retracted \(fold.retracted)")
        lines.append("dead letters    \(processor.deadLetterTotal)")
        for (reason, count) in processor.deadLetters.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            lines.append("  \(reason.rawValue.padded(36)) \(count)")
        }
        lines.append("ordering        \(fold.lateInputs) late inputs placed by \(fold.rewinds) refolds (\(fold.refoldedInputs) inputs refolded), \(fold.duplicates) duplicates dropped")
        lines.append("filters         \(fold.filteredJumps) GPS jumps, \(fold.tooInaccurate) too inaccurate, \(fold.unmatchedCommands) unmatched commands")
        lines.append("throughput      \(Int(fixesPerSecond)) fixes/s (\(String(format2: seconds)) s)")
        return lines
    }
}

extension String {
    func padded(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }

    init(format2 value: Double) {
        let hundredths = Int((value * 100).rounded())
        self = "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }
}
