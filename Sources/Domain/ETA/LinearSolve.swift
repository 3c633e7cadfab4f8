/// Solves `a · x = b` for a small dense system by Gaussian elimination with partial pivoting, in
/// one fixed order of operations (the same inputs give bit-identical outputs). Nil when singular.
/// - Complexity: O(n³), n = `b.count` (8 here, a few times per fitted model, never per fix).
func solveLinearSystem(_ a: [[Double]], _ b: [Double]) -> [Double]? {
    let n = b.count
    var m = a.enumerated().map { $0.element + [b[$0.offset]] }
    for column in 0..<n {
        var pivot = column
        for row in (column + 1)..<n where abs(m[row][column]) > abs(m[pivot][column]) { pivot = row }
        guard m[pivot][column] != 0, m[pivot][column].isFinite else { return nil }
        m.swapAt(column, pivot)
        for row in 0..<n where row != column && m[row][column] != 0 {
            let factor = m[row][column] / m[column][column]
            for j in column...n { m[row][j] -= factor * m[column][j] }
        }
    }
    let x = (0..<n).map { m[$0][n] / m[$0][$0] }
    return x.allSatisfy(\.isFinite) ? x : nil
}
