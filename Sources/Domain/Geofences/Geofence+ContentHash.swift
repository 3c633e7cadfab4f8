extension Geofence {
    /// A stable hash of everything that defines the geofence (id, texts, shape, metadata, options):
    /// equal for equal definitions in every process, so a table's fingerprint can say whether the
    /// table a user's history was folded with is the one in force now, even after a restart.
    static func contentHash(
        tag: String, externalId: String, description: String, shape: GeofenceShape, metadata: RawJSON?,
        enabled: Bool, dwellThreshold: Int?, stopDetection: Bool, disableAfter: UnixMillis?, deleteAfter: UnixMillis?
    ) -> UInt64 {
        var hasher = StableHasher()
        hasher.combine(tag)
        hasher.combine(externalId)
        hasher.combine(description)
        switch shape {
        case let .circle(center, radius):
            hasher.combine(UInt8(0))
            hasher.combine(center)
            hasher.combine(radius.bitPattern)
        case let .polygon(rings):
            hasher.combine(UInt8(1))
            hasher.combine(UInt64(rings.count))
            for ring in rings {
                hasher.combine(UInt64(ring.count))
                for point in ring { hasher.combine(point) }
            }
        }
        hasher.combine(UInt64(metadata?.bytes.count ?? .max))
        for byte in metadata?.bytes ?? [] { hasher.combine(byte) }
        hasher.combine(UInt8(enabled ? 1 : 0))
        hasher.combine(Int64(dwellThreshold ?? -1))
        hasher.combine(UInt8(stopDetection ? 1 : 0))
        hasher.combine(disableAfter ?? .min)
        hasher.combine(deleteAfter ?? .min)
        return hasher.value
    }
}

extension StableHasher {
    fileprivate mutating func combine(_ point: Coordinate) {
        combine(UInt64(UInt32(bitPattern: point.latitudeE7)) << 32 | UInt64(UInt32(bitPattern: point.longitudeE7)))
    }
}
