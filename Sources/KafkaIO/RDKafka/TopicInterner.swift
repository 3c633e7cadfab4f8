import CRdKafka

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns librdkafka's topic-name C strings into shared Swift strings.
///
/// A consumer sees a handful of topics, so a linear `strcmp` scan beats hashing and lets every record of a topic
/// share one string buffer instead of allocating a new one per record.
struct TopicInterner {
    private var names: [(cString: [CChar], string: String)] = []

    mutating func intern(_ name: UnsafePointer<CChar>) -> String {
        for entry in names where entry.cString.withUnsafeBufferPointer({ strcmp($0.baseAddress!, name) }) == 0 {
            return entry.string
        }
        let string = String(cString: name)
        names.append((Array(string.utf8CString), string))
        return string
    }
}
