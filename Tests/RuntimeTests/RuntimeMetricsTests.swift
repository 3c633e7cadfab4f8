import Runtime
import Testing

@Suite struct RuntimeMetricsTests {
    @Test func quantileBoundsComeFromTheCumulativeBuckets() {
        var histogram = RuntimeMetrics.Histogram(bounds: [0.1, 0.2, 0.5])
        #expect(histogram.quantileBound(0.5) == nil)
        for value in [0.05, 0.15, 0.15, 0.3] { histogram.observe(value) }
        #expect(histogram.quantileBound(0.25) == 0.1)
        #expect(histogram.quantileBound(0.5) == 0.2)
        #expect(histogram.quantileBound(0.75) == 0.2)
        #expect(histogram.quantileBound(0.99) == 0.5)
        histogram.observe(7)
        #expect(histogram.quantileBound(0.99) == .infinity)
    }

    @Test func sinceKeepsOnlyTheLaterObservations() {
        var histogram = RuntimeMetrics.Histogram(bounds: [0.1, 1])
        histogram.observe(5)
        let earlier = histogram
        histogram.observe(0.05)
        histogram.observe(0.5)
        let delta = histogram.since(earlier)
        #expect(delta.count == 2)
        #expect(delta.counts == [1, 2])
        #expect(abs(delta.sum - 0.55) < 1e-9)
        #expect(delta.quantileBound(0.99) == 1)
    }

    @Test func theCommitLatencyHistogramIsExposed() {
        let metrics = RuntimeMetrics()
        metrics.update { $0.inputToCommitSeconds.observe(0.12) }
        let text = metrics.render()
        #expect(text.contains(#"tripstream_input_to_commit_seconds_bucket{le="0.125"} 1"#))
        #expect(text.contains(#"tripstream_input_to_commit_seconds_bucket{le="0.1"} 0"#))
        #expect(text.contains("tripstream_input_to_commit_seconds_count 1"))
        #expect(text.contains("tripstream_forced_merges_total 0"))
    }
}
