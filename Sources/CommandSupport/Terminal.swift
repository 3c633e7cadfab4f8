#if canImport(Glibc)
import Glibc
#endif

/// Standard error output: logs, progress bars and summaries, never mixed into data on stdout.
public enum Terminal {
    public static var isInteractive: Bool { isatty(STDERR_FILENO) == 1 }

    public static func error(_ line: String) { write(line + "\n", to: STDERR_FILENO) }

    public static func output(_ line: String) { write(line + "\n", to: STDOUT_FILENO) }

    public static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if n <= 0 { return }
                offset += n
            }
        }
    }

    /// Redraws a one-line progress bar in place (only on a terminal).
    public static func progress(_ fraction: Double, label: String) {
        guard isInteractive else { return }
        let width = 30
        let filled = Int((min(max(fraction, 0), 1) * Double(width)).rounded())
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        write("\r\(label) \(bar) \(Int(fraction * 100))%", to: STDERR_FILENO)
    }

    public static func endProgress() {
        guard isInteractive else { return }
        write("\r\u{1b}[2K", to: STDERR_FILENO)
    }

    public static func sleep(seconds: Double) {
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var remaining = timespec()
        _ = nanosleep(&request, &remaining)
    }

}
