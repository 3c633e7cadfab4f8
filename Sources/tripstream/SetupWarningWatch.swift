import Foundation
import Runtime

/// `run` and `demo` say a bad setup (`SetupWarnings`) as soon as the service shows it: a thread that looks
/// at the service's metrics every few seconds, once it has loaded its geofence table.
enum SetupWarningWatch {
    static func start(metrics: RuntimeMetrics, geofencesTopic: String, log: @escaping @Sendable (String) -> Void) {
        let thread = Thread {
            var warnings = SetupWarnings(source: "the topic \(geofencesTopic)")
            while !ShutdownSignal.isRequested {
                Terminal.sleep(seconds: 2)
                let values = metrics.snapshot
                guard values.ready else { continue }
                for line in warnings.next(geofences: values.geofences, counters: values.processor) { log(line) }
            }
        }
        thread.start()
    }
}
