import CommandLineKit
import Domain
import Runtime

#if canImport(Glibc)
import Glibc
#endif

/// `tripstream diff A B`: what changed between two runs' events (a what-if replay against the
/// original), by `_id`, summarised per event type and per geofence.
enum DiffCommand {
    static let spec = CommandSpec(
        name: "diff",
        abstract: "Compare two runs' events by _id: added, removed, changed; per type and per geofence.",
        discussion: """
            A and B are replay output directories (their events.ndjson is read) or events files (NDJSON, plain \
            or .lz4). Each run's events are upserted by _id first (the latest publication wins, a retraction \
            removes), so a run with late data compares by what a consumer ends with. Processing time and \
            delivery flags are not compared. Each changed event shown names the fields that changed \
            (trip.eta.duration 12 → 11.5); the events shown come most changed first, added and removed ones \
            (every field differs) before changed ones, and changes of a trip's ETA alone come last, largest \
            first. Exit status: 0 when the events are the same, 1 when they differ.
            """,
        options: [
            .value("show", valueName: "count", help: "Differences printed one by one (0: only the summary).",
                   default: "10"),
            .value("top", valueName: "count", help: "Geofences and fields listed in the summary, most changed first.",
                   default: "20"),
        ],
        positionals: [
            PositionalSpec("A", help: "The first run: an output directory or an events file.", isRequired: true),
            PositionalSpec("B", help: "The second run.", isRequired: true),
        ])

    static func run(_ parsed: ParsedArguments) throws {
        let paths = [parsed.positional("A")!, parsed.positional("B")!]
        let show = try parsed.int("show", in: 0...1_000_000)
        let top = try parsed.int("top", in: 0...1_000_000)
        let diff = EventDiff(before: try events(paths[0]), after: try events(paths[1]))
        Terminal.output("events          \(diff.eventsBefore.grouped) in A, \(diff.eventsAfter.grouped) in B")
        Terminal.output("differences     \(diff.counts.added.grouped) added, \(diff.counts.removed.grouped) removed, \(diff.counts.changed.grouped) changed")
        if diff.etaOnlyChanges > 0 {
            Terminal.output("                \(diff.etaOnlyChanges.grouped) of the changed differ only in their trip's ETA (shown last)")
        }
        if !diff.isEmpty {
            Terminal.output("")
            Terminal.output("by type".padded(40) + "added".padded(10) + "removed".padded(10) + "changed")
            for type in EventType.allCases {
                guard let counts = diff.byType[type] else { continue }
                Terminal.output(row(type.name, counts))
            }
            if top > 0, !diff.byGeofence.isEmpty {
                Terminal.output("")
                Terminal.output("by geofence".padded(40) + "added".padded(10) + "removed".padded(10) + "changed")
                let ranked = diff.byGeofence.sorted { ($0.value.total, $1.key) > ($1.value.total, $0.key) }
                for (geofence, counts) in ranked.prefix(top) { Terminal.output(row(geofence, counts)) }
                if ranked.count > top { Terminal.output("… \(ranked.count - top) more geofences") }
            }
            if top > 0, !diff.byField.isEmpty {
                Terminal.output("")
                Terminal.output("by field (changed events)".padded(40) + "changed")
                let ranked = diff.byField.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
                for (path, count) in ranked.prefix(top) { Terminal.output(path.padded(39) + " " + count.grouped) }
                if ranked.count > top { Terminal.output("… \(ranked.count - top) more fields") }
            }
            if show > 0 {
                Terminal.output("")
                for change in diff.changes.prefix(show) { printChange(change) }
                if diff.changes.count > show { Terminal.output("… \(diff.changes.count - show) more (--show)") }
            }
        }
        if !diff.isEmpty { throw DiffFound() }
    }

    /// A changed event as its changed fields, one a line; an added or removed one as the run's JSON.
    private static func printChange(_ change: EventDiff.Change) {
        let fields = change.kind == .changed ? " (\(change.fields.count) \(change.fields.count == 1 ? "field" : "fields"))" : ""
        Terminal.output("\(change.kind.rawValue) \(change.id.hexString) \(change.type.name) user \(change.userId)\(fields)")
        guard change.kind == .changed else {
            if let before = change.before { Terminal.output("  A: \(before)") }
            if let after = change.after { Terminal.output("  B: \(after)") }
            return
        }
        let width = min(max(change.fields.map(\.path.count).max() ?? 0, 20), 48) + 2
        for field in change.fields {
            Terminal.output("  " + field.path.padded(width) + "\(field.before ?? "(absent)") → \(field.after ?? "(absent)")")
        }
    }

    private static func row(_ name: String, _ counts: EventDiff.Counts) -> String {
        name.padded(39) + " " + counts.added.grouped.padded(10) + counts.removed.grouped.padded(10) + counts.changed.grouped
    }

    /// A directory's events.ndjson (or .ndjson.lz4), or the file itself.
    private static func events(_ path: String) throws -> [Event] {
        var candidates = [path]
        if isDirectory(path) { candidates = [path + "/events.ndjson", path + "/events.ndjson.lz4"] }
        guard let file = candidates.first(where: { access($0, R_OK) == 0 }) else {
            throw CommandFailure("\(path): no events file (looked for \(candidates.joined(separator: ", ")))")
        }
        do {
            return try EventDiff.readEvents(path: file)
        } catch {
            throw CommandFailure(error)
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}

/// The runs differ: exit status 1, as diff(1), with nothing more to say on stderr.
struct DiffFound: Error {}
