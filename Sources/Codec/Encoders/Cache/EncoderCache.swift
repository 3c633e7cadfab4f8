import Domain

/// The fragment caches of one encoder: trip plans and geofences by identity (see `FragmentCache`).
/// A disabled cache (capacity 0) makes the encoders write every field directly.
struct EncoderCache: Sendable {
    /// Per plan: 0 the trip's opening, 1 its plan fields, 2 the ETA record's opening, 3 its destination.
    var plans: FragmentCache<TripPlan>
    /// Per geofence: the whole `geofence` object.
    var geofences: FragmentCache<Geofence>

    init(planCapacity: Int, geofenceCapacity: Int) {
        plans = FragmentCache(capacity: planCapacity)
        geofences = FragmentCache(capacity: geofenceCapacity)
    }

    /// No caching: for the stateless `EventEncoder` and `EtaEncoder`.
    static var disabled: EncoderCache { EncoderCache(planCapacity: 0, geofenceCapacity: 0) }

    static func buildPlan(_ plan: TripPlan, _ w: inout JSONWriter) -> FragmentCache<TripPlan>.Cuts {
        var cuts = FragmentCache<TripPlan>.Cuts()
        w.tripOpening(plan)
        cuts.ends.0 = Int32(w.count)
        w.tripPlanFields(plan)
        cuts.ends.1 = Int32(w.count)
        w.etaRecordOpening(plan)
        cuts.ends.2 = Int32(w.count)
        w.etaRecordDestination(plan)
        cuts.ends.3 = Int32(w.count)
        return cuts
    }

    static func buildGeofence(_ geofence: Geofence, _ w: inout JSONWriter) -> FragmentCache<Geofence>.Cuts {
        w.geofence(geofence)
        var cuts = FragmentCache<Geofence>.Cuts()
        cuts.ends.0 = Int32(w.count)
        return cuts
    }
}
