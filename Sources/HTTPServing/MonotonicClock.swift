#if canImport(Glibc)
import Glibc
#endif

/// Milliseconds on a clock that never jumps (CLOCK_MONOTONIC): what the server's deadlines count in.
enum MonotonicClock {
    static func milliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
