/// A setup that cannot work as meant, said once per cause with its count: an empty geofence table (no
/// geofence event fires, no destination geofence resolves), and trip commands whose destination geofence is
/// not in the table (those trips get no ETA and never arrive). Either way the trips' other events flow;
/// only the warning says why ETAs and arrivals are missing. `replay`, `run` and `demo` say them alike.
public struct SetupWarnings: Sendable {
    /// Where the geofences come from, as the warnings name it: `--geofences FILE`, `topic tripstream.geofences`.
    public let source: String
    private var saidEmptyTable = false
    private var saidUnknownDestinations = 0

    public init(source: String) { self.source = source }

    /// The warnings not said yet for a table of `geofences` and the processor's `counters`; a cause already
    /// said is said again only once its count grew tenfold.
    public mutating func next(geofences: Int, counters: ProcessorCounters) -> [String] {
        var lines: [String] = []
        if geofences == 0 && !saidEmptyTable {
            saidEmptyTable = true
            lines.append("warning: the geofence table is empty (\(source)): no geofence event fires, and no trip's "
                + "destination geofence resolves (trips start, without an ETA or an arrival)")
        }
        let unknown = counters.unknownDestinations
        if unknown > 0 && (saidUnknownDestinations == 0 || unknown >= saidUnknownDestinations * 10) {
            saidUnknownDestinations = unknown
            let example = counters.unknownDestinationExample.map { ", e.g. \($0)" } ?? ""
            lines.append("warning: \(unknown) trip command\(unknown == 1 ? "" : "s") named a destination geofence that "
                + "is not in the geofence table (\(source)\(example)): those trips get no ETA and never arrive; "
                + "their other events flow")
        }
        return lines
    }
}
