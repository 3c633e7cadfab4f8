/// One field of an event that two runs have differently (`trip.eta.duration 12 → 11.5`): its path and
/// its JSON value in each run, nil where that run's event has no such field.
public struct FieldChange: Sendable, Equatable {
    public var path: String
    public var before: String?
    public var after: String?

    public init(path: String, before: String?, after: String?) {
        self.path = path
        self.before = before
        self.after = after
    }

    /// Whether the field is part of a trip's ETA (its duration, distance and range, or `etaRising`):
    /// what moves a little on every fix when anything upstream changes, so it says least.
    public var isETA: Bool { path.hasPrefix("trip.eta.") || path == "trip.etaRising" }

    /// The fields that differ between two JSON texts, in the order of the first text's fields, then the
    /// fields only the second has.
    static func between(_ before: String, _ after: String) -> [FieldChange] {
        let old = JSONLeaves.of(before)
        let new = JSONLeaves.of(after)
        var newValues: [String: String] = [:]
        for leaf in new { newValues[leaf.path] = leaf.value }
        var oldPaths = Set<String>()
        var changes: [FieldChange] = []
        for leaf in old {
            oldPaths.insert(leaf.path)
            let now = newValues[leaf.path]
            if now != leaf.value { changes.append(FieldChange(path: leaf.path, before: leaf.value, after: now)) }
        }
        for leaf in new where !oldPaths.contains(leaf.path) {
            changes.append(FieldChange(path: leaf.path, before: nil, after: leaf.value))
        }
        return changes
    }
}
