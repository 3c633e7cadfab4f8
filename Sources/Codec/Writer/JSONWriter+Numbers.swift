// MARK: - Numbers

extension JSONWriter {
    /// A decimal integer.
    public mutating func int(_ value: Int64) {
        withUnsafeTemporaryAllocation(byteCount: 20, alignment: 1) { scratch in
            var magnitude = value.magnitude
            var i = 20
            repeat {
                i -= 1
                scratch[i] = UInt8(truncatingIfNeeded: 48 + magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[i..<20]))
        }
    }

    public mutating func int(_ value: Int) { int(Int64(value)) }
    public mutating func int(_ value: Int32) { int(Int64(value)) }

    /// `scaled` / 10^`decimals`, printed exactly with trailing fractional zeros removed:
    /// (411407460, 7) → `41.140746`, (1, 7) → `0.0000001`, (850, 2) → `8.5`, (0, 7) → `0`.
    public mutating func fixedPoint(_ scaled: Int64, decimals: Int) {
        withUnsafeTemporaryAllocation(byteCount: 32, alignment: 1) { scratch in
            var magnitude = scaled.magnitude
            var i = 32
            var printedFraction = false
            for _ in 0..<decimals {
                let d = magnitude % 10
                magnitude /= 10
                if d != 0 || printedFraction {
                    i -= 1
                    scratch[i] = UInt8(truncatingIfNeeded: 48 + d)
                    printedFraction = true
                }
            }
            if printedFraction {
                i -= 1
                scratch[i] = UInt8(ascii: ".")
            }
            repeat {
                i -= 1
                scratch[i] = UInt8(truncatingIfNeeded: 48 + magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if scaled < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[i..<32]))
        }
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
        shortest(value.description)
    }

    /// As `double(_:)`, for `Float` (shortest text for the `Float`, so 4.7 prints as `4.7`).
    public mutating func float(_ value: Float) {
        precondition(value.isFinite, "JSON cannot represent \(value)")
        shortest(value.description)
    }

    private mutating func shortest(_ text: String) {
        var text = text  // up to 15 bytes: stored inline, no allocation
        text.withUTF8 { utf8 in
            var n = utf8.count
            if n > 2 && utf8[n - 2] == UInt8(ascii: ".") && utf8[n - 1] == UInt8(ascii: "0") { n -= 2 }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[0..<n]))
        }
    }
}
