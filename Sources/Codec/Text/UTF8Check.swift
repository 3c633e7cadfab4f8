/// Whether bytes are well-formed UTF-8 (Unicode Table 3-7), without building a `String`.
enum UTF8Check {
    static func isValid(_ bytes: [UInt8]) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
