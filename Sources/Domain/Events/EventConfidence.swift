/// Radar's `confidence` of a geofence event: 1 low, 2 medium, 3 high.
///
/// The rule: how far the fix lies from the geofence's edge, on the event's side (inside for an
/// entry, outside for an exit), against its accuracy. The whole uncertainty circle on that side
/// (margin ≥ accuracy) is high; at least half of its radius (margin ≥ accuracy / 2) medium; less is
/// low (an entry allowed by `FoldSettings.enterAccuracyFloor`, or a fix near the edge). A fix without
/// an accuracy is medium. An exit because the geofence went away is high: the visit certainly ended.
public enum EventConfidence: UInt8, Sendable, CaseIterable {
    case low = 1
    case medium = 2
    case high = 3

    /// - Parameters:
    ///   - margin: meters between the fix and the edge, on the event's side (≥ 0).
    ///   - accuracy: the fix's accuracy in meters; NaN when unknown.
    public init(margin: Double, accuracy: Float) {
        guard !accuracy.isNaN else {
            self = .medium
            return
        }
        let accuracy = Double(accuracy)
        self = margin >= accuracy ? .high : margin * 2 >= accuracy ? .medium : .low
    }
}
