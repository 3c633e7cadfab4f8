#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ln x for the ETA's per-fix logs (six on every fix of a trip with a fleet model): the exponent
/// from the bits, the mantissa's log by the atanh series to s¹⁷, within 10⁻¹⁵ of libm's and half its
/// cost. The same bits on every platform. Outside the positive normal range it is libm's `log`.
@inline(__always)
func naturalLog(_ x: Double) -> Double {
    guard x >= Double.leastNormalMagnitude, x < Double.infinity else { return log(x) }
    let bits = x.bitPattern
    var exponent = Double(Int((bits >> 52) & 0x7FF) - 1023)
    var mantissa = Double(bitPattern: bits & 0x000F_FFFF_FFFF_FFFF | 0x3FF0_0000_0000_0000)  // [1, 2)
    if mantissa > 1.4142135623730951 {  // to [√½, √2): |s| ≤ 0.172 below
        mantissa *= 0.5
        exponent += 1
    }
    let s = (mantissa - 1) / (mantissa + 1)
    let s2 = s * s
    var series = 1.0 / 17
    series = series * s2 + 1.0 / 15
    series = series * s2 + 1.0 / 13
    series = series * s2 + 1.0 / 11
    series = series * s2 + 1.0 / 9
    series = series * s2 + 1.0 / 7
    series = series * s2 + 1.0 / 5
    series = series * s2 + 1.0 / 3
    series = series * s2 + 1
    return exponent * 0.6931471805599453 + 2 * s * series
}
