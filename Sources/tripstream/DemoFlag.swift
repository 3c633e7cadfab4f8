import Foundation

/// Coordination between the demo's threads.
final class DemoFlag: @unchecked Sendable {
    // Safe: every field is guarded by `condition`.
    private let condition = NSCondition()
    private var stop = false
    private var publisherDone = false
    private var runtimeDone = false
    private var publishedCounts: (fixes: Int, commands: Int)?
    private var failure: String?

    var isSet: Bool { condition.lock(); defer { condition.unlock() }; return stop }
    var publisherFinished: Bool { condition.lock(); defer { condition.unlock() }; return publisherDone }
    var runtimeFinished: Bool { condition.lock(); defer { condition.unlock() }; return runtimeDone }
    /// Fixes and trip commands the fleet published, once it finished.
    var published: (fixes: Int, commands: Int)? { condition.lock(); defer { condition.unlock() }; return publishedCounts }
    var publishedInputs: Int? { published.map { $0.fixes + $0.commands } }
    /// What stopped the service or the fleet before it was asked to stop.
    var failed: String? { condition.lock(); defer { condition.unlock() }; return failure }

    func published(fixes: Int, commands: Int) {
        condition.lock(); publishedCounts = (fixes, commands); condition.unlock()
    }

    func fail(_ reason: String) { condition.lock(); failure = failure ?? reason; condition.unlock() }

    func set() { condition.lock(); stop = true; condition.broadcast(); condition.unlock() }
    func publisherStopped() { condition.lock(); publisherDone = true; condition.broadcast(); condition.unlock() }
    func runtimeStopped() { condition.lock(); runtimeDone = true; condition.broadcast(); condition.unlock() }

    func waitForPublisher() {
        condition.lock()
        while !publisherDone { condition.wait() }
        condition.unlock()
    }

    func waitForRuntime() {
        condition.lock()
        while !runtimeDone { condition.wait() }
        condition.unlock()
    }
}
