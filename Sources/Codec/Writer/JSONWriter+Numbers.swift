// MARK: - Numbers

extension JSONWriter {
    /// A decimal integer.
    public mutating func int(_ value: Int64) {
        let p = room(20)
        var i = 0
        if value < 0 {
            p[0] = UInt8(ascii: "-")
            i = 1
        }
        commit(i + Self.writeDigits(value.magnitude, to: p + i))
    }

    public mutating func int(_ value: Int) { int(Int64(value)) }
    public mutating func int(_ value: Int32) { int(Int64(value)) }

    /// Writes the decimal digits of `v`; returns how many. Two digits per division, from a table.
    @inline(__always)
    static func writeDigits(_ v: UInt64, to p: UnsafeMutablePointer<UInt8>) -> Int {
        var count = 1
        var t = v
        while t >= 10 {
            t /= 10
            count &+= 1
        }
        var v = v
        var i = count
        while v >= 100 {
            let q = v / 100
            i &-= 2
            writePair(Int(truncatingIfNeeded: v &- q &* 100), to: p + i)
            v = q
        }
        if v >= 10 {
            writePair(Int(truncatingIfNeeded: v), to: p)
        } else {
            p.pointee = UInt8(truncatingIfNeeded: 48 &+ v)
        }
        return count
    }

    /// `"00"` … `"99"`.
    static let digitPairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// Writes the two digits of `v` (0…99) at `p`.
    @inline(__always)
    static func writePair(_ v: Int, to p: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(p).copyMemory(from: digitPairs.utf8Start + 2 &* v, byteCount: 2)
    }

    /// `scaled` / 10^`decimals` (`decimals` ≤ 18), printed exactly with trailing fractional zeros
    /// removed: (411407460, 7) → `41.140746`, (1, 7) → `0.0000001`, (850, 2) → `8.5`, (0, 7) → `0`.
    @inline(__always)
    public mutating func fixedPoint(_ scaled: Int64, decimals: Int) {
        let p = room(42)
        var n = 0
        if scaled < 0 {
            p[0] = UInt8(ascii: "-")
            n = 1
        }
        let unit = JSONNumber.pow10(decimals)  // a constant once inlined: division becomes multiplication
        let magnitude = scaled.magnitude
        n += Self.writeDigits(magnitude / unit, to: p + n)
        var fraction = magnitude % unit
        if fraction != 0 {
            // All `decimals` digits, zero-padded, two at a time from the right (`decimals` is a
            // constant once inlined: the loop unrolls), then the trailing zeros cut off.
            p[n] = UInt8(ascii: ".")
            let end = n + 1 + decimals
            var i = end, remaining = decimals
            while remaining >= 2 {
                let q = fraction / 100
                i -= 2
                Self.writePair(Int(truncatingIfNeeded: fraction &- q &* 100), to: p + i)
                fraction = q
                remaining -= 2
            }
            if remaining == 1 { p[i - 1] = UInt8(truncatingIfNeeded: 48 &+ fraction) }
            n = end
            while p[n - 1] == UInt8(ascii: "0") { n -= 1 }  // stops at a nonzero digit: the fraction was not 0
        }
        commit(n)
    }

    /// Degrees from fixed point E7, exact and minimal: 411407460 → `41.140746`.
    public mutating func coordinateE7(_ value: Int32) { fixedPoint(Int64(value), decimals: 7) }

    /// Minutes from seconds, rounded to hundredths (ties away from zero) and trimmed:
    /// 480 → `8`, 510 → `8.5`, 500 → `8.33`. Rounding to 0.6 s keeps `round(minutes × 60)` = seconds.
    public mutating func minutes(seconds: Int64) {
        let magnitude = seconds.magnitude
        let hundredths = (magnitude * 100 + 30) / 60
        fixedPoint(seconds < 0 ? -Int64(hundredths) : Int64(hundredths), decimals: 2)
    }

    /// The shortest text that reads back as the same `Double` (Swift's `description`), with a
    /// trailing `.0` dropped (`100.0` → `100`). Callers omit non-finite values: JSON has none.
    public mutating func double(_ value: Double) {
        precondition(value.isFinite, "JSON cannot represent \(value)")
        // Integers print as integers, without the general algorithm.
        if value == value.rounded(.towardZero) && abs(value) < 1e15 && !(value == 0 && value.sign == .minus) {
            int(Int64(value))
            return
        }
        shortest(value.description)
    }

    /// As `double(_:)`, for `Float` (shortest text for the `Float`, so 4.7 prints as `4.7`).
    public mutating func float(_ value: Float) {
        precondition(value.isFinite, "JSON cannot represent \(value)")
        if value == value.rounded(.towardZero) && abs(value) < 1e7 && !(value == 0 && value.sign == .minus) {
            int(Int64(value))
            return
        }
        if shortDecimal(value) { return }
        shortest(value.description)
    }

    /// Writes `value` (finite, not an integer) as `description` would when it has at most four
    /// decimals and a magnitude in [0.001, 1000), as accuracies and speeds do; returns false, writing
    /// nothing, otherwise. `description` is the shortest text that reads back as `value`: the first
    /// `k` whose nearest multiple of 10⁻ᵏ reads back as `value` gives it, and in that range a Float's
    /// spacing (at most 2⁻¹⁴) is below 10⁻⁴, so only one multiple of 10⁻ᵏ can read back as it.
    /// About a fifth of the cost of formatting `description` (a String per value).
    @inline(__always)
    mutating func shortDecimal(_ value: Float) -> Bool {
        let magnitude = abs(value)
        guard magnitude >= 0.001, magnitude < 1000 else { return false }
        let exact = Double(magnitude)  // every Float is a Double: scaling by 10ᵏ ≤ 10⁴ is exact
        var unit: Int64 = 10
        for decimals in 1...4 {
            let scaled = (exact * Double(unit)).rounded()
            if Float(scaled / Double(unit)) == magnitude {
                fixedPoint(value < 0 ? -Int64(scaled) : Int64(scaled), decimals: decimals)
                return true
            }
            unit *= 10
        }
        return false
    }

    private mutating func shortest(_ text: String) {
        var text = text  // up to 15 bytes: stored inline, no allocation
        text.withUTF8 { utf8 in
            var n = utf8.count
            if n > 2 && utf8[n - 2] == UInt8(ascii: ".") && utf8[n - 1] == UInt8(ascii: "0") { n -= 2 }
            append(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[0..<n]))
        }
    }
}
