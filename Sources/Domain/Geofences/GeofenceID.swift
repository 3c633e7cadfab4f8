/// A stable identity for a geofence: a 64-bit hash of `tag/externalId`.
///
/// Stable across processes and restarts (unlike `Hasher`), so it can live in persisted user state
/// and in event ids.
public struct GeofenceID: Hashable, Sendable, Comparable {
    public var rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public init(tag: String, externalId: String) {
        var hasher = StableHasher()
        hasher.combine(tag)
        hasher.combine(UInt8(ascii: "/"))
        hasher.combine(externalId)
        self.rawValue = hasher.value
    }

    public static func < (lhs: GeofenceID, rhs: GeofenceID) -> Bool { lhs.rawValue < rhs.rawValue }
}
