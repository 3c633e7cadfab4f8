/// Event time and processing time: milliseconds since 1970-01-01T00:00:00Z.
///
/// A plain integer keeps the fold free of Foundation and makes every comparison exact.
public typealias UnixMillis = Int64

extension UnixMillis {
    public static let millisPerMinute: Int64 = 60_000
}
