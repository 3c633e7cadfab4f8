import CommandSupport
import enum Runtime.WallClock

/// Timings of one benchmark stage: one warm-up, then `runs` timed runs.
struct BenchResult {
    var seconds: [Double]
    var items: Int

    /// - Parameter prepare: run before each run, untimed.
    static func measure(runs: Int, prepare: () throws -> Void = {}, _ body: () throws -> Int) rethrows -> BenchResult {
        try prepare()
        _ = try body()  // warm-up: caches, allocator, page faults
        var seconds: [Double] = []
        var items = 0
        for _ in 0..<runs {
            try prepare()
            let start = WallClock.monotonic()
            items = try body()
            seconds.append(WallClock.monotonic() - start)
        }
        return BenchResult(seconds: seconds, items: items)
    }

    var median: Double { Self.median(seconds) }

    /// The middle value (the mean of the two middle ones for an even count); 0 for none.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    var medianRate: Double { Double(items) / median }

    func summary(unit: String) -> String {
        let rates = seconds.map { Double(items) / $0 }.sorted()
        return "\(Int(medianRate).grouped) \(unit)/s median (min \(Int(rates.first!).grouped), max \(Int(rates.last!).grouped); \(items.grouped) \(unit) per run)"
    }
}
