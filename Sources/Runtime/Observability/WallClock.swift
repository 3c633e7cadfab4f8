#if canImport(Glibc)
import Glibc
#endif

/// Processing time and elapsed time for the runtime (never used by the fold).
public enum WallClock {
    /// Milliseconds since 1970 (processing time).
    public static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// Monotonic seconds, for intervals and latencies.
    public static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
