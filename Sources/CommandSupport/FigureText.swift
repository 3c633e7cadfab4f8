/// How the commands print figures: thousands grouped, one or two decimals, columns padded.
extension Int {
    /// 1234567 → "1,234,567".
    public var grouped: String {
        let digits = String(Swift.abs(self))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return self < 0 ? "-" + out : out
    }
}

extension String {
    public init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(Swift.abs(tenths % 10))"
    }

    public init(format2 value: Double) {
        let hundredths = Int((value * 100).rounded())
        let fraction = Swift.abs(hundredths % 100)
        self = "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    public func padded(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
