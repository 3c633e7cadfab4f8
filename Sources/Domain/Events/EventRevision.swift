/// Whether an event is news, or a republication of an earlier `_id` after an offline replay
/// changed history (DESIGN.md "Ordering: offline replay").
public enum EventRevision: UInt8, Sendable {
    /// First publication of this `_id`.
    case original
    /// Same `_id` as an earlier event whose fields the corrected history changed (`corrected: true`).
    case corrected
    /// Same `_id` as an earlier event the corrected history no longer yields (`retracted: true`).
    case retracted
}
