/// A JSON number as read: sign, up to 19 significant decimal digits and a power of ten, plus the
/// source range for exact conversions and error details.
///
/// value = (negative ? -1 : 1) × (significand + ε) × 10^exponent, where ε ∈ [0, 1) is nonzero
/// only if digits beyond the 19th were dropped (`hasDroppedDigits`).
public struct JSONNumber: Sendable, Equatable {
    public var significand: UInt64
    /// Power of ten; saturates at ±(1 << 30) for absurd exponents, which is still exact in effect.
    public var exponent: Int
    public var negative: Bool
    /// Nonzero digits beyond the 19 kept in `significand` were dropped.
    public var hasDroppedDigits: Bool
    /// Offset of the first byte of the number in the buffer.
    public var start: Int
    /// Offset just after the last byte.
    public var end: Int

    /// A power of ten that makes any value overflow or underflow everything we convert to.
    static let exponentLimit = 1 << 30

    // MARK: - Conversions

    /// Decimal digits before the decimal point of the magnitude, i.e. ⌊log10|v|⌋ + 1 (for v ≠ 0).
    var magnitudeDigits: Int {
        var n = 0
        var s = significand
        while s > 0 {
            n += 1
            s /= 10
        }
        return n + exponent
    }

    /// The number × 10⁷, rounded to the nearest integer (ties away from zero, as `Double.rounded()`),
    /// or nil if it does not fit in an `Int64`. Exact: integer arithmetic only.
    public var scaledE7: Int64? {
        if significand == 0 { return 0 }
        let shift = exponent + 7
        var magnitude: UInt64
        if shift >= 0 {
            if shift > 19 { return nil }
            let (product, overflow) = significand.multipliedReportingOverflow(by: Self.pow10(shift))
            if overflow || product > UInt64(Int64.max) { return nil }
            magnitude = product
        } else {
            let down = -shift
            if down > 19 { return 0 }  // |v| × 10⁷ < 10¹⁹ / 10²⁰ < 0.5
            let divisor = Self.pow10(down)
            let (quotient, remainder) = significand.quotientAndRemainder(dividingBy: divisor)
            magnitude = quotient
            // Ties go away from zero; dropped digits only ever add to the remainder, and a remainder
            // below half stays below half (the divisor is even), so they cannot change the result.
            if remainder >= divisor - remainder { magnitude += 1 }
            if magnitude > UInt64(Int64.max) { return nil }
        }
        return negative ? -Int64(magnitude) : Int64(magnitude)
    }

    /// The value as an exact integer, or nil if it has a fractional part or does not fit in `Int64`.
    public var exactInteger: Int64? {
        if significand == 0 { return 0 }
        if hasDroppedDigits { return nil }
        var magnitude = significand
        if exponent >= 0 {
            if exponent > 19 { return nil }
            let (product, overflow) = magnitude.multipliedReportingOverflow(by: Self.pow10(exponent))
            if overflow { return nil }
            magnitude = product
        } else {
            if -exponent > 19 { return nil }
            let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: Self.pow10(-exponent))
            if remainder != 0 { return nil }
            magnitude = quotient
        }
        if magnitude > UInt64(Int64.max) { return nil }
        return negative ? -Int64(magnitude) : Int64(magnitude)
    }

    /// Whether the value is mathematically an integer (JSON Schema's `integer`: 5.0 counts).
    public var isIntegral: Bool {
        if significand == 0 { return true }
        if hasDroppedDigits { return exponent >= 0 }
        if exponent >= 0 { return true }
        if -exponent > 19 { return false }
        return significand % Self.pow10(-exponent) == 0
    }

    /// Whether converting to `Double` gives ±infinity (the text is finite, but beyond `Double`'s range).
    public var overflowsDouble: Bool { significand != 0 && magnitudeDigits > 309 }

    /// 10^n for n in 0...19, without touching a global array on the hot path.
    @inline(__always)
    static func pow10(_ n: Int) -> UInt64 {
        switch n {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        case 8: 100_000_000
        case 9: 1_000_000_000
        case 10: 10_000_000_000
        case 11: 100_000_000_000
        case 12: 1_000_000_000_000
        case 13: 10_000_000_000_000
        case 14: 100_000_000_000_000
        case 15: 1_000_000_000_000_000
        case 16: 10_000_000_000_000_000
        case 17: 100_000_000_000_000_000
        case 18: 1_000_000_000_000_000_000
        default: 10_000_000_000_000_000_000
        }
    }

    static let exactDoublePowers: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ]
}
