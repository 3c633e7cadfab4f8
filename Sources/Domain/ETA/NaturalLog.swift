#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ln x for the ETA's per-fix logs (six on every fix of a trip with a fleet model): the exponent
/// from the bits, the mantissa's log by the atanh series to s⁹, within 10⁻⁹ of libm's (far below
/// what a feature means) for about half its cost, and the same bits on every platform.
///
/// Every argument here is a distance, time or speed padded to at least 1; anything else (below 1, NaN)
/// goes to libm's `log`.
@inline(__always)
func naturalLog(_ x: Double) -> Double {
    guard x >= 1 else { return log(x) }
    let bits = x.bitPattern
    var exponent = Double(Int((bits >> 52) & 0x7FF) - 1023)
    var mantissa = Double(bitPattern: bits & 0x000F_FFFF_FFFF_FFFF | 0x3FF0_0000_0000_0000)  // [1, 2)
    if mantissa > 1.4142135623730951 {  // to [√½, √2): |s| ≤ 0.172 below
        mantissa *= 0.5
        exponent += 1
    }
    let s = (mantissa - 1) / (mantissa + 1)
    let s2 = s * s
    var series = 1.0 / 9
    series = series * s2 + 1.0 / 7
    series = series * s2 + 1.0 / 5
    series = series * s2 + 1.0 / 3
    series = series * s2 + 1
    return exponent * 0.6931471805599453 + 2 * s * series
}
