#if canImport(Glibc)
import Glibc
#endif

/// How long to stop accepting after `accept` failed. Out of descriptors (EMFILE, ENFILE) the call fails at once
/// until one closes: retried at once, the loop would spin a core away from everything else.
public enum AcceptBackoff {
    /// Seconds to wait after the `consecutive`-th failure in a row with `error`: nil (at once) for a connection
    /// that was interrupted or gave up before being accepted, else 5 ms doubling to 1 s, as net/http does.
    public static func pause(afterAcceptFailure error: Int32, consecutive: Int) -> Double? {
        if error == EINTR || error == ECONNABORTED || error == EAGAIN { return nil }
        return min(0.005 * Double(1 << min(max(consecutive - 1, 0), 8)), 1)
    }
}
