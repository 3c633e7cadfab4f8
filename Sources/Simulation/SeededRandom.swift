/// SplitMix64: small, fast and seedable, so a simulation is the same on every run and machine.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// A standard normal sample (Box–Muller).
    public mutating func gaussian() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * Math.log(u1)).squareRoot() * Math.cos(2 * Double.pi * u2)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libm, namespaced so call sites read clearly.
enum Math {
    static func log(_ x: Double) -> Double { Glibc.log(x) }
    static func cos(_ x: Double) -> Double { Glibc.cos(x) }
    static func sin(_ x: Double) -> Double { Glibc.sin(x) }
}
