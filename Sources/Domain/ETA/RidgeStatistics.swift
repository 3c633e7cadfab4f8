/// Sufficient statistics of a least-squares regression on `EtaFeatures`: the upper triangle of X'X
/// and X'y. They add (partitions, runs, learning folds), and a ridge fit toward a prior solves from
/// them alone.
public struct RidgeStatistics: Sendable, Equatable {
    /// Upper triangle of X'X, row by row (36 values for 8 features).
    public private(set) var gram: [Double]
    /// X'y.
    public private(set) var moments: [Double]

    public static let gramCount = EtaFeatures.count * (EtaFeatures.count + 1) / 2

    public init() {
        gram = Array(repeating: 0, count: Self.gramCount)
        moments = Array(repeating: 0, count: EtaFeatures.count)
    }

    /// Statistics as a model file stores them; nil unless the sizes fit and every value is finite.
    public init?(gram: [Double], moments: [Double]) {
        guard gram.count == Self.gramCount, moments.count == EtaFeatures.count, gram.allSatisfy(\.isFinite),
            moments.allSatisfy(\.isFinite)
        else { return nil }
        self.gram = gram
        self.moments = moments
    }

    /// One observation: features `x`, response `y`.
    mutating func add(_ x: SIMD8<Double>, _ y: Double) {
        var index = 0
        for i in 0..<EtaFeatures.count {
            moments[i] += x[i] * y
            for j in i..<EtaFeatures.count {
                gram[index] += x[i] * x[j]
                index += 1
            }
        }
    }

    mutating func merge(_ other: RidgeStatistics) {
        for i in gram.indices { gram[i] += other.gram[i] }
        for i in moments.indices { moments[i] += other.moments[i] }
    }

    /// Solves (X'X + λI) w = X'y + λ w₀; nil when singular.
    func solve(toward prior: [Double], weight lambda: Double) -> [Double]? {
        let k = EtaFeatures.count
        var a = Array(repeating: Array(repeating: 0.0, count: k), count: k)
        var index = 0
        for i in 0..<k {
            for j in i..<k {
                a[i][j] = gram[index]
                a[j][i] = gram[index]
                index += 1
            }
            a[i][i] += lambda
        }
        return solveLinearSystem(a, (0..<k).map { moments[$0] + lambda * prior[$0] })
    }
}
