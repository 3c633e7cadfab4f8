#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Access to the real process, kept in one place so everything else can be tested with injected values.
public enum ProcessEnvironment {
    /// The environment of the running process as a dictionary.
    public static func current() -> [String: String] {
        var variables: [String: String] = [:]
        // `environ` is optional on Darwin and not on Glibc; binding through an optional covers both.
        let first: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        guard var entry = first else { return variables }
        while let pointer = entry.pointee {
            let pair = String(cString: pointer)
            if let equals = pair.firstIndex(of: "=") {
                variables[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            entry += 1
        }
        return variables
    }

    /// Writes `text` to standard error, unbuffered.
    public static func writeToStandardError(_ text: String) {
        write(text, to: 2)
    }

    /// Writes `text` to standard output, unbuffered.
    public static func writeToStandardOutput(_ text: String) {
        write(text, to: 1)
    }

    private static func write(_ text: String, to fileDescriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                #if canImport(Darwin)
                    let written = Darwin.write(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
                #else
                    let written = Glibc.write(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
                #endif
                if written < 0, errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
